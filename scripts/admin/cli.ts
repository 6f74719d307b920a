// The admin CLI's front: finds the command (its first two words), parses the rest with
// node:util's parseArgs against that command's options, runs it and prints its answer (a table or
// fields, or JSON with --json). Exit code 0, or 2 with the error on stderr (JSON with --json).
import { parseArgs } from 'node:util';
import { distance } from '../../src/config/distance.js';
import { COMMANDS, groupOf, isCommand } from './commands.js';
import { render } from './output.js';
import { PASSWORD_ON_ARGV } from './registry.js';
import { type Command, type Options, type Parsed, UsageError } from './types.js';

const COMMON: Options = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };
const PROGRAM = 'npm run admin --';

export function usageOf(group?: string, name?: string): string {
  const g = group && Object.hasOwn(COMMANDS, group) ? COMMANDS[group] : undefined;
  const c = isCommand(g) ? g : g && name && Object.hasOwn(g, name) ? g[name] : undefined;
  if (c) return `usage: ${PROGRAM} ${c.usage} [--json]\n\n${c.summary}\n`;
  const groups = g ? [group!] : Object.keys(COMMANDS);
  const lines = groups.flatMap((g) => groupOf(g).map((x) => `  ${x.usage}\n      ${x.summary}`));
  return [
    `usage: ${PROGRAM} <command> [--json] [--help]`,
    '',
    "Works offline on the server's data (HEARTH_DATA_DIR, HEARTH_DATABASE_URL). --json prints the",
    'answer as JSON (errors too, on stderr). Exit code 0, or 2 on an error.',
    '',
    'commands:',
    ...lines,
    '',
  ].join('\n');
}

interface Io {
  out(s: string): void;
  err(s: string): void;
}

function findCommand(argv: string[]): { group?: string; name?: string; command?: Command; rest: string[] } {
  const word = (s: string | undefined) => (s !== undefined && !s.startsWith('-') ? s : undefined);
  const group = word(argv[0]);
  // own properties only: `toString` or `constructor` is no command
  const g = group === undefined || !Object.hasOwn(COMMANDS, group) ? undefined : COMMANDS[group];
  if (isCommand(g)) return { group, command: g, rest: argv.slice(1) };
  // the second word also when the first is unknown: "projets list" suggests "projects list"
  const name = word(argv[1]);
  const command = g && name && Object.hasOwn(g, name) ? g[name] : undefined;
  return { group, name, command, rest: argv.slice(command ? 2 : group ? 1 : 0) };
}

/** the known word nearest to `word`, when it is near enough to be a typo of it (a third of it changed at most) */
function closest(word: string, known: string[]): string | undefined {
  let best = Infinity;
  let found: string | undefined;
  for (const k of known) {
    const d = distance(word, k);
    if (d < best) [best, found] = [d, k];
  }
  return best <= Math.max(2, Math.floor(word.length / 3)) ? found : undefined;
}

/** an unknown command's error, with the closest command when there is one (docs/operations.md#admin-cli) */
function explainMissing(group: string | undefined, name: string | undefined): string {
  if (!group) return 'missing command';
  const g = Object.hasOwn(COMMANDS, group) ? COMMANDS[group] : undefined;
  const hint = (s: string | undefined) => (s ? `; did you mean ${JSON.stringify(s)}?` : '');
  if (!g) {
    // a mistyped group ("projets"), or a group's command given without its group ("revoke")
    const near = closest(group, Object.keys(COMMANDS));
    const owners = Object.keys(COMMANDS).filter((k) => !isCommand(COMMANDS[k]) && Object.hasOwn(COMMANDS[k], group));
    const full = near && name && !isCommand(COMMANDS[near]) ? closest(name, Object.keys(COMMANDS[near])) : undefined;
    const suggestion = near ? (full ? `${near} ${full}` : near) : owners.length === 1 ? `${owners[0]} ${group}` : undefined;
    return `unknown command ${JSON.stringify(group)}${hint(suggestion)}`;
  }
  if (!name && !isCommand(g)) return `missing ${group} subcommand: ${Object.keys(g).join(' | ')}`;
  const near = isCommand(g) ? undefined : closest(name!, Object.keys(g));
  return `unknown command ${JSON.stringify(`${group} ${name}`)}${hint(near && `${group} ${near}`)}`;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const json = argv.includes('--json');
  const fail = (reason: string, message: string, usage?: string) => {
    io.err(json ? JSON.stringify({ reason, data: { message } }) + '\n' : `error: ${message}\n${usage ? `\n${usage}` : ''}`);
    return 2;
  };
  // before anything else: a secret typed on the command line is refused, never used
  if (argv.some((a) => a === '--password' || a.startsWith('--password='))) return fail('USAGE_ERROR', `--password: ${PASSWORD_ON_ARGV}`);
  const { group, name, command, rest } = findCommand(argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    if (wantsHelp) return (io.out(usageOf(group)), 0);
    return fail('USAGE_ERROR', explainMissing(group, name), usageOf(group));
  }
  const usage = `usage: ${PROGRAM} ${command.usage}\n`;
  let args: Parsed;
  try {
    const p = parseArgs({ args: rest, options: { ...COMMON, ...command.options }, allowPositionals: true, strict: true });
    if (p.positionals.length > command.maxPositionals) throw new UsageError(`unexpected argument ${JSON.stringify(p.positionals[command.maxPositionals])}`);
    args = { positionals: p.positionals, values: p.values, json };
  } catch (e) {
    return fail('USAGE_ERROR', (e as Error).message, usage);
  }
  if (args.values.help) return (io.out(usageOf(group, name)), 0);
  try {
    const out = await runCommand(command, args);
    io.out(render(out, { json, columns: command.columns }));
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return fail('USAGE_ERROR', e.message, usage);
    const err = e as Error & { reason?: string; data?: Record<string, unknown> };
    if (err.name === 'AppError' && err.reason) {
      io.err(json ? JSON.stringify({ reason: err.reason, data: err.data }) + '\n' : `error: ${err.reason}${err.data ? ' ' + JSON.stringify(err.data) : ''}\n`);
      return 2;
    }
    // ConfigError, an unreachable Redis, a refused restore ...: their message is the explanation
    const plain = PLAIN_ERRORS[err?.name];
    if (plain) return fail(plain, err.message);
    return fail('INTERNAL_ERROR', err?.stack ?? String(e));
  }
}

// errors whose message is the whole explanation (a bad setting, an unreachable Redis, a refused
// restore, a database file that cannot be opened); anything else is a bug and shows its stack
const PLAIN_ERRORS: Record<string, string> = {
  ConfigError: 'CONFIG_ERROR',
  AdminError: 'ADMIN_ERROR',
  RedisUnavailableError: 'SERVICE_UNAVAILABLE',
  SqliteError: 'DATABASE_ERROR',
};

async function runCommand(command: Command, args: Parsed): Promise<unknown> {
  const { loadAdminConfig, openContext } = await import('./context.js');
  const config = await loadAdminConfig();
  if (command.runWithConfig) return command.runWithConfig(config, args);
  const ctx = await openContext(config);
  try {
    return await command.run!(ctx, args);
  } finally {
    await ctx.close();
  }
}
