// getHTTPAccessLogEntries (docs/operations.md#logs): recorded requests of one project, newest first.
// Entries never carry their projectId; paths were stored without their secrets (http/access-log).
import * as v from 'valibot';
import type { StoreOf, VerbArgs } from '../deps.js';
import type { AccessLogRow, Paged } from '../../ports/store.js';
import { historyFilter, pageQueryEntries, timeQuery, type HistoryListInput } from '../log/query.js';
import { TimeSchema, IdQuerySchema } from '../validate.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export const AccessLogQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  since: timeQuery('since'),
  until: timeQuery('until'),
  method: v.optional(
    v.pipe(
      v.string(),
      // a regex rather than a picklist after the transform, so that the docs show the choices
      v.regex(new RegExp(`^(${METHODS.join('|')})$`, 'i'), `method must be one of ${METHODS.join(', ')}`),
      v.transform((s) => s.toUpperCase()),
    ),
  ),
  statusCode: v.optional(v.pipe(v.string(), v.regex(/^[1-5]\d\d$/, 'statusCode must be an HTTP status, 100 to 599'), v.transform(Number))),
  pathPrefix: v.optional(v.pipe(v.string(), v.startsWith('/', 'pathPrefix must start with /'), v.maxLength(1024, 'pathPrefix is at most 1024 characters'))),
  ...pageQueryEntries,
});
export type AccessLogQuery = v.InferOutput<typeof AccessLogQuerySchema>;

/** docs/operations.md#logs: latency is an integer number of nanoseconds */
export const AccessLogEntrySchema = v.object({
  clientIp: v.string(),
  latency: v.pipe(v.number(), v.integer()),
  method: v.string(),
  path: v.string(),
  statusCode: v.pipe(v.number(), v.integer()),
  timestamp: TimeSchema,
});
export type AccessLogEntry = Omit<AccessLogRow, 'projectId'>;

export const toAccessLogEntry = (r: AccessLogRow): AccessLogEntry => ({
  clientIp: r.clientIp,
  latency: Math.round(r.latency),
  method: r.method,
  path: r.path,
  statusCode: r.statusCode,
  timestamp: r.timestamp,
});

export async function listAccessLogs({
  deps,
  caller,
  input: { query, page },
}: VerbArgs<StoreOf<'accessLogs'>, HistoryListInput<AccessLogQuery>>): Promise<Paged<AccessLogEntry>> {
  const r = await deps.store.accessLogs.list(historyFilter(caller, query, 'logs'), page);
  return { total: r.total, items: r.items.map(toAccessLogEntry) };
}
