// docs/webhooks.md#event-webhook, docs/webhooks.md#subscriptions: an event becomes one delivery per module of its project whose event webhook
// subscribes to its type. Only events of a home go anywhere (docs/webhooks.md). The rows are returned,
// not written: emitEvent commits them with the event itself (outbox).
import type { EventRecord, ModuleRow } from '../../ports/store.js';
import type { Deps } from '../deps.js';
import type { NewDelivery } from '../../ports/queue.js';
import { eventTargets } from './event-targets.js';
import { eventWebhookJson } from './payload.js';

/** the bus `work` queue name workers listen for */
export const WEBHOOK_QUEUE = 'webhooks';

/**
 * `eventJson`: JSON.stringify(event) when the caller already has it (payload.ts eventWebhookJson).
 * Without a promise when the project's modules are cached (all but one event per project per
 * TARGETS_TTL_MS): a promise and a turn of the microtask queue less per event.
 */
export function eventDeliveries(
  deps: Pick<Deps, 'pipeline' | 'ids'>,
  projectId: number,
  eventId: string,
  event: EventRecord,
  now: Date,
  eventJson?: string,
): NewDelivery[] | Promise<NewDelivery[]> {
  if (event.homeId === undefined) return [];
  const targets = eventTargets(deps, projectId, event.eventType);
  return Array.isArray(targets)
    ? deliveriesTo(deps, targets, projectId, eventId, event, now, eventJson)
    : (targets as Promise<readonly ModuleRow[]>).then((t) => deliveriesTo(deps, t, projectId, eventId, event, now, eventJson));
}

function deliveriesTo(
  deps: Pick<Deps, 'ids'>,
  targets: readonly ModuleRow[],
  projectId: number,
  eventId: string,
  event: EventRecord,
  now: Date,
  eventJson: string | undefined,
): NewDelivery[] {
  if (targets.length === 0) return [];
  // one payload text for every module: the exact bytes each receives (before templates)
  const payload = eventWebhookJson(event as EventRecord & { homeId: number }, eventJson);
  const creationTime = deps.ids.timestamp(now);
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
