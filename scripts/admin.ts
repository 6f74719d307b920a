// Admin CLI (API.md §3): `npm run admin -- <command>`. Works offline on the same data directory
// or database as the server. Output is JSON on stdout; errors go to stderr with exit code 2.
import { parseArgs, UsageError } from './admin/args.js';
import { findCommand, usageOf } from './admin/commands.js';
import type { AdminContext } from './admin/context.js';

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n\n${usageOf()}`);
    return 2;
  }
  const [group, name] = args.positionals;
  if (args.flags.get('help') === true) {
    process.stdout.write(usageOf(group, name));
    return 0;
  }
  let command;
  try {
    command = findCommand(args);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n\n${usageOf(group)}`);
    return 2;
  }
  // the command's own arguments follow its two words
  const own = { ...args, positionals: args.positionals.slice(2) };
  // loaded only now: help and usage errors answer without opening the database
  const { openContext } = await import('./admin/context.js');
  const { isAppError } = await import('../src/domain/errors.js');
  const { ConfigError } = await import('../src/config/load.js');
  let ctx: AdminContext;
  try {
    ctx = await openContext();
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
  try {
    const out = await command.run(ctx, own);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof UsageError) process.stderr.write(`error: ${e.message}\n\nusage: npm run admin -- ${command.usage}\n`);
    else if (isAppError(e)) process.stderr.write(`error: ${e.reason}${e.data ? ' ' + JSON.stringify(e.data) : ''}\n`);
    else if (e instanceof ConfigError) process.stderr.write(`error: ${e.message}\n`);
    else process.stderr.write(`error: ${(e as Error).stack ?? String(e)}\n`);
    return 2;
  } finally {
    await ctx.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
