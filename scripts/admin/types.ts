// The shape of an admin CLI command. This file and the command tables import nothing heavy: a
// command loads the domain verbs (and opens the database) only when it runs, so `--help`, a usage
// error or a `backup` start without loading the server.
import type { ParseArgsConfig } from 'node:util';
import type { AdminContext } from './context.js';
import type { Config } from '../../src/config/schema.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  json: boolean;
}

export interface Command {
  /** `devices create <projectId> [--class <deviceClass>]`, without the program name */
  usage: string;
  summary: string;
  /** parseArgs options of its own (`--json` and `--help` are everyone's) */
  options?: Options;
  /** how many positionals it takes at most (more is a usage error) */
  maxPositionals: number;
  /** table columns for human output of a list (default: every key of the first row) */
  columns?: string[];
  /** runs with the database open, as an admin of the projects it names */
  run?(ctx: AdminContext, args: Parsed): Promise<unknown>;
  /** or with the configuration only (backup, restore open what they need themselves) */
  runWithConfig?(config: Config, args: Parsed): Promise<unknown>;
}

export class UsageError extends Error {
  override name = 'UsageError';
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

export const str = (a: Parsed, name: string): string | undefined => {
  const v = a.values[name];
  return typeof v === 'string' ? v : undefined;
};

/** every page of a paged list */
export async function all<T>(fetch: (page: { skip: number; limit: number }) => Promise<{ items: T[]; total: number | null }>): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const r = await fetch({ skip: out.length, limit: 1000 });
    out.push(...r.items);
    if (r.items.length === 0 || (r.total !== null && out.length >= r.total)) return out;
  }
}
