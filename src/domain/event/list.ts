// The events history (docs/concepts.md): accepted events of one project, newest first, as they were
// delivered (docs/concepts.md#events with the service fields filled). Read by project keys with `events`.
import * as v from 'valibot';
import type { StoreOf, VerbArgs } from '../deps.js';
import type { EventRecord, Paged } from '../../ports/store.js';
import { historyFilter, pageQueryEntries, timeQuery, type HistoryListInput } from '../log/query.js';
import { TimeSchema, IdQuerySchema } from '../validate.js';

export const EventQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  homeId: IdQuerySchema('homeId'),
  deviceId: IdQuerySchema('deviceId'),
  // system types start with `_` (docs/devices.md#mqtt), so this is looser than the docs/concepts.md#events send pattern
  eventType: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,128}$/, 'eventType must be 1 to 128 letters, digits, - or _'))),
  since: timeQuery('since'),
  until: timeQuery('until'),
  ...pageQueryEntries,
});
export type EventQuery = v.InferOutput<typeof EventQuerySchema>;

/** docs/concepts.md#events, as delivered */
export const EventSchema = v.object({
  eventType: v.string(),
  eventData: v.record(v.string(), v.unknown()),
  timestamp: TimeSchema,
  homeId: v.optional(v.number()),
  originDeviceId: v.optional(v.number()),
  originDeviceClass: v.optional(v.string()),
  originDeviceIp: v.optional(v.string()),
  originProjectKeyId: v.optional(v.string()),
  originProjectKeyName: v.optional(v.string()),
});

export async function listEvents({
  deps,
  caller,
  input: { query, page },
}: VerbArgs<StoreOf<'events'>, HistoryListInput<EventQuery>>): Promise<Paged<EventRecord>> {
  const r = await deps.store.events.list(historyFilter(caller, query, 'events'), page);
  return { total: r.total, items: r.items.map((row) => row.event) };
}
