// A small argv parser: positionals, `--flag value`, `--flag=value` and boolean `--flag`.
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** flags that never take a value */
const BOOLEAN = new Set(['help', 'can-create-devices']);

export function parseArgs(argv: string[]): Args {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') flags.set('help', true);
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags.set(name, a.slice(eq + 1));
      else if (BOOLEAN.has(name)) flags.set(name, true);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
        flags.set(name, value);
        i++;
      }
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export function flag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

/** a positive integer positional such as a project id */
export function intArg(value: string | undefined, what: string): number {
  if (value === undefined) throw new UsageError(`missing ${what}`);
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

export function stringArg(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}
