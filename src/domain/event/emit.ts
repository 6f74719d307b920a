// The one event pipeline (docs/devices.md#mqtt): every accepted event — device, project key or system — is
// recorded in the events history with its webhook deliveries (outbox, same transaction) and
// announced on the bus for live watchers.
import type { Deps } from '../deps.js';
import type { EventRecord, EventRow, Store } from '../../ports/store.js';
import type { NewDelivery } from '../../ports/queue.js';
import { randomId } from '../auth/tokens.js';
import { eventDeliveries, WEBHOOK_QUEUE } from '../webhook/fan-out.js';
import { reserveLocal } from '../webhook/handoff.js';
import { GroupCommit } from './group-commit.js';

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

interface Outgoing {
  row: EventRow;
  deliveries: NewDelivery[];
  /** set by the commit: some deliveries went to the queue for any worker to claim */
  queued?: boolean;
}

/**
 * One commit of the outbox: the events, then their deliveries, one statement (or prepared
 * statement run) per table. Deliveries a worker of this process has room for are written leased
 * to it and handed over once committed (domain/webhook/handoff.ts); the rest wait in the queue.
 */
async function commitOutbox(store: Store, items: Outgoing[]): Promise<void> {
  const deliveries = items.length === 1 ? items[0].deliveries : items.flatMap((i) => i.deliveries);
  const { reservations, rest } = deliveries.length > 0 ? reserveLocal(store, deliveries) : { reservations: [], rest: deliveries };
  try {
    await store.transaction(async (tx) => {
      await tx.events.insertMany(items.map((i) => i.row));
      for (const r of reservations) await tx.deliveries.insertMany(r.taken, r.claim);
      if (rest.length > 0) await tx.deliveries.insertMany(rest);
    });
  } catch (err) {
    for (const r of reservations) r.cancel();
    throw err;
  }
  for (const r of reservations) r.accept();
  if (rest.length > 0) {
    const queued = new Set(rest);
    for (const i of items) i.queued = i.deliveries.some((d) => queued.has(d));
  }
}

const outboxes = new WeakMap<Store, GroupCommit<Outgoing>>();

function outboxOf(store: Store): GroupCommit<Outgoing> {
  let o = outboxes.get(store);
  if (!o) outboxes.set(store, (o = new GroupCommit((items) => commitOutbox(store, items))));
  return o;
}

/**
 * Records the event and its webhook deliveries, then announces it. Resolves only once both are
 * committed: the event history row and one delivery row per subscribed module go in ONE
 * transaction (outbox), so an event accepted is never without its deliveries, even if the
 * process dies right after (docs/webhooks.md). Pub/sub comes after the commit and may be lost; the
 * `work` message only wakes workers early, they poll the queue anyway. Deliveries handed to a
 * worker of this process need no `work` message.
 */
export async function emitEvent(deps: Pick<Deps, 'store' | 'bus' | 'clock' | 'pipelineMetrics'>, input: EmitInput): Promise<string> {
  const now = deps.clock.now();
  const id = newEventId(now);
  // module lookup is cached per project (domain/webhook/targets.ts): no query per event
  const deliveries = await eventDeliveries(deps.store, input.projectId, id, input.event, now);
  const item: Outgoing = { row: { id, projectId: input.projectId, event: input.event }, deliveries };
  // one transaction with the other events of this moment (group-commit.ts): durable before we answer
  const entered = deps.pipelineMetrics ? performance.now() : 0;
  await outboxOf(deps.store).add(item);
  deps.pipelineMetrics?.eventCommitted((performance.now() - entered) / 1000);
  await deps.bus.publish('event', { projectId: input.projectId, deviceId: input.event.originDeviceId, event: input.event });
  if (item.queued) await deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
  return id;
}

/** a system event about a device carries its id, class and home (docs/devices.md#mqtt) */
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
