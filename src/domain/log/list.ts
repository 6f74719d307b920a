// getLogEntries (docs/operations.md#logs): the general log of one project, newest first. Entries never
// carry their projectId: the caller asked for one project and sees only that one.
import * as v from 'valibot';
import type { StoreOf, VerbArgs } from '../deps.js';
import type { GeneralLogRow, LogCaller, Paged } from '../../ports/store.js';
import { historyFilter, pageQueryEntries, timeQuery, type HistoryListInput } from './query.js';
import { TimeSchema, IdQuerySchema } from '../validate.js';

export const LogQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  since: timeQuery('since'),
  until: timeQuery('until'),
  // docs/operations.md#logs: 0 debug, 1 info, 2 warn, 3 error; the filter is a minimum
  level: v.optional(v.pipe(v.string(), v.regex(/^[0-3]$/, 'level must be 0 (debug) to 3 (error)'), v.transform(Number))),
  source: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64, 'source is at most 64 characters'))),
  ...pageQueryEntries,
});
export type LogQuery = v.InferOutput<typeof LogQuerySchema>;

/** docs/operations.md#logs entry, all fields optional */
export const LogEntrySchema = v.object({
  caller: v.optional(
    v.object({
      id: v.optional(v.union([v.string(), v.number()])),
      type: v.optional(v.string()),
      name: v.optional(v.string()),
      sudoer: v.optional(v.boolean()),
    }),
  ),
  level: v.pipe(v.number(), v.integer()),
  source: v.string(),
  text: v.string(),
  timestamp: TimeSchema,
});
export interface LogEntry {
  caller?: LogCaller;
  level: number;
  source: string;
  text: string;
  timestamp: string;
}

export function toLogEntry(r: GeneralLogRow): LogEntry {
  const e: LogEntry = { level: r.level, source: r.source, text: r.text, timestamp: r.timestamp };
  if (r.caller) e.caller = r.caller;
  return e;
}

export async function listLogs({ deps, caller, input: { query, page } }: VerbArgs<StoreOf<'logs'>, HistoryListInput<LogQuery>>): Promise<Paged<LogEntry>> {
  const r = await deps.store.logs.list(historyFilter(caller, query, 'logs'), page);
  return { total: r.total, items: r.items.map(toLogEntry) };
}
