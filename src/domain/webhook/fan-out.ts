// docs/webhooks.md#event-webhook, docs/webhooks.md#subscriptions: an event becomes one delivery per module of its project whose event webhook
// subscribes to its type. Only events of a home go anywhere (docs/webhooks.md). The rows are returned,
// not written: emitEvent commits them with the event itself (outbox).
import type { EventRecord } from '../../ports/store.js';
import type { Deps } from '../deps.js';
import type { NewDelivery } from '../../ports/queue.js';
import { eventTargets } from './event-targets.js';
import { eventWebhookJson } from './payload.js';

/** the bus `work` queue name workers listen for */
export const WEBHOOK_QUEUE = 'webhooks';

/** `eventJson`: JSON.stringify(event) when the caller already has it (payload.ts eventWebhookJson) */
export async function eventDeliveries(
  deps: Pick<Deps, 'pipeline' | 'ids'>,
  projectId: number,
  eventId: string,
  event: EventRecord,
  now: Date,
  eventJson?: string,
): Promise<NewDelivery[]> {
  if (event.homeId === undefined) return [];
  const targets = await eventTargets(deps, projectId, event.eventType);
  if (targets.length === 0) return [];
  // one payload text for every module: the exact bytes each receives (before templates)
  const payload = eventWebhookJson(event as EventRecord & { homeId: number }, eventJson);
  const creationTime = now.toISOString();
  const ids = deps.ids;
  return targets.map((m) => ({
    id: ids.delivery(now),
    projectId,
    moduleId: m.id,
    kind: 'event' as const,
    eventId,
    eventType: event.eventType,
    payload,
    creationTime,
  }));
}
