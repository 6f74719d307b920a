// Query pieces shared by the history lists (access logs, general logs, events): RFC 3339 bounds,
// integer ids, and which project a caller may read. Query strings arrive as strings; each piece
// checks the text and turns it into what the store compares.
import * as v from 'valibot';
import type { Caller, Scope } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import type { Page } from '../../ports/store.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** a real calendar date and clock time: Date.parse would roll 2026-02-30 over to March */
function isRealTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  const offsetOk = m[9] === undefined || (Number(m[9]) < 24 && Number(m[10]) < 60);
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h < 24 && mi < 60 && sec < 60 && offsetOk;
}

/**
 * An optional RFC 3339 date-time (docs/api.md#conventions), normalised to UTC with milliseconds: stored
 * timestamps have that exact form, so the store can compare them as text.
 */
export const timeQuery = (name: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.description(`${name}: RFC 3339 date-time, e.g. 2026-11-22T12:00:00.000Z`),
      v.check(isRealTime, `${name} must be an RFC 3339 date-time, e.g. 2026-11-22T12:00:00.000Z`),
      v.transform((s) => new Date(s).toISOString()),
    ),
  );

/** skip/limit, listed for the docs; the HTTP edge parses and bounds them (paging.ts) */
export const pageQueryEntries = {
  skip: v.optional(v.pipe(v.string(), v.regex(/^\d{1,9}$/, 'skip must be a non-negative integer'))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,9}$/, 'limit must be a positive integer'))),
};

/** what a history list takes: its query, parsed by the route before the page (skip/limit), an order its errors keep */
export type HistoryListInput<Q> = { query: Q; page: Page };

/**
 * The project whose history a caller reads: a project key of that project holding `scope`
 * (or `admin`). `projectId` defaults to the key's own; another project's id is refused.
 */
export function historyProject(caller: Caller, projectId: number | undefined, scope: Scope): number {
  requireCaller(caller);
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: `project key with scope ${scope}` });
  const pid = projectId ?? caller.projectId;
  requireProjectKey(caller, pid, scope);
  return pid;
}

/** the store's filter of a history query: its fields without the page (skip/limit), in the project historyProject resolves */
export function historyFilter<Q extends { projectId?: number; skip?: string; limit?: string }>(
  caller: Caller,
  query: Q,
  scope: Scope,
): Omit<Q, 'projectId' | 'skip' | 'limit'> & { projectId: number } {
  const { projectId, skip: _skip, limit: _limit, ...filter } = query;
  return { ...filter, projectId: historyProject(caller, projectId, scope) };
}
