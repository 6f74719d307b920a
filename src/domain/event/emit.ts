// The one event pipeline (API.md §5): every accepted event — device, project key or system — is
// recorded in the events history with its webhook deliveries (outbox, same transaction) and
// announced on the bus for live watchers.
import type { Deps } from '../deps.js';
import type { EventRecord } from '../../ports/store.js';
import { randomId } from '../auth/tokens.js';
import { eventDeliveries, WEBHOOK_QUEUE } from '../webhook/fan-out.js';
import { groupCommit } from './group-commit.js';

export interface EmitInput {
  projectId: number;
  event: EventRecord;
}

// a random prefix per process and a counter: unique without a call to the CSPRNG per event (that
// call was a measurable share of MQTT ingest)
const ID_PREFIX = randomId(6);
let idCounter = 0;

/** time-ordered, unique: sorts like the timestamp within one process */
export function newEventId(now: Date): string {
  idCounter = (idCounter + 1) % 0x7fffffff;
  return `${now.getTime().toString(36).padStart(9, '0')}-${ID_PREFIX}${idCounter.toString(36).padStart(6, '0')}`;
}

/**
 * Records the event and its webhook deliveries, then announces it. Resolves only once both are
 * committed: the event history row and one delivery row per subscribed module go in ONE
 * transaction (outbox), so an event accepted is never without its deliveries, even if the
 * process dies right after (API.md §9). Pub/sub comes after the commit and may be lost; the
 * `work` message only wakes workers early, they poll the queue anyway.
 */
export async function emitEvent(deps: Pick<Deps, 'store' | 'bus' | 'clock'>, input: EmitInput): Promise<string> {
  const now = deps.clock.now();
  const id = newEventId(now);
  const row = { id, projectId: input.projectId, event: input.event };
  // module lookup is cached per project (domain/webhook/targets.ts): no query per event
  const deliveries = await eventDeliveries(deps.store, input.projectId, id, input.event, now);
  // one transaction with the other events of this moment (group-commit.ts): durable before we answer
  await groupCommit(deps.store, async (tx) => {
    await tx.events.insert(row);
    if (deliveries.length > 0) await tx.deliveries.insertMany(deliveries);
  });
  await deps.bus.publish('event', { projectId: input.projectId, deviceId: input.event.originDeviceId, event: input.event });
  if (deliveries.length > 0) await deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
  return id;
}

/** a system event about a device carries its id, class and home (API.md §5) */
export function deviceSystemEvent(
  device: { id: number; deviceClass: string; homeId: number | null },
  eventType: string,
  eventData: Record<string, unknown>,
  now: Date,
): EventRecord {
  const e: EventRecord = {
    eventType,
    eventData,
    timestamp: now.toISOString(),
    originDeviceId: device.id,
    originDeviceClass: device.deviceClass,
  };
  if (device.homeId !== null) e.homeId = device.homeId;
  return e;
}
