// The one event pipeline (docs/devices.md#mqtt): every accepted event — device, project key or system — is
// recorded in the events history with its webhook deliveries (outbox, same transaction) and
// announced on the bus for live watchers.
import type { EmitDeps } from '../deps.js';
import type { EventRecord, PresenceWrite } from '../../ports/store.js';
import { eventDeliveries, WEBHOOK_QUEUE } from '../webhook/fan-out.js';
import type { OutboxItem } from '../../ports/pipeline.js';
import { PUBLISHED } from '../../ports/bus.js';
import type { NewDelivery } from '../../ports/queue.js';
import { pointsOfEvent } from '../tsdb/points.js';

export interface EmitInput {
  projectId: number;
  event: EventRecord;
  /** presence events: the device's presence flip, committed with the event (pipeline.ts) */
  presence?: PresenceWrite;
  /** JSON.stringify(event), when the caller has it (send.ts): the history row and the webhook payload reuse it */
  json?: string;
  /** the clock's reading the caller stamped the event with (send.ts), when it has one: the event's id is taken from it */
  now?: Date;
  /** its sender waits for the answer before it sends more (a REST event): see OutboxItem.senderWaits */
  senderWaits?: boolean;
}

/**
 * Records the event and its webhook deliveries, then announces it. Resolves only once both are
 * committed: the event history row and one delivery row per subscribed module go in ONE
 * transaction (outbox), so an event accepted is never without its deliveries, even if the
 * process dies right after (docs/webhooks.md). Pub/sub comes after the commit and may be lost; the
 * `work` message only wakes workers early, they poll the queue anyway. Deliveries handed to a
 * worker of this process need no `work` message. The outbox is `deps.pipeline` (pipeline.ts).
 */
export function emitEvent(deps: EmitDeps, input: EmitInput): Promise<string> {
  return emitAnswering(deps, input, undefined) as Promise<string>;
}

/**
 * emitEvent, resolving with `answer` instead of the event's id: the event verb (send.ts) answers
 * with the event without a promise and a turn of its own after this one's (issue #26)
 */
export function emitEventAnswering<T>(deps: EmitDeps, input: EmitInput, answer: T): Promise<T> {
  return emitAnswering(deps, input, answer) as Promise<T>;
}

/** the id when `answer` is undefined */
function emitAnswering(deps: EmitDeps, input: EmitInput, answer: unknown): Promise<unknown> {
  // what throws before the commit rejects, as it did when this was an async function (emitFlip and
  // others return this promise as theirs)
  try {
    return emitNow(deps, input, answer);
  } catch (err) {
    return Promise.reject(err);
  }
}

function emitNow(deps: EmitDeps, input: EmitInput, answer: unknown): Promise<unknown> {
  const now = input.now ?? deps.clock.now();
  // time-ordered and unique (crypto/ids.ts)
  const id = deps.ids.event(now);
  // module lookup is cached per project (domain/webhook/event-targets.ts): no query per event, and no promise
  const fanned = eventDeliveries(deps, input.projectId, id, input.event, now, input.json);
  // the common case without a turn of its own: deliveries known at once, no time-series points. Not
  // an async function: its frame and the awaits' reactions were a share of an event's garbage (issue #26)
  if (!Array.isArray(fanned) || input.event.eventData.timeSeriesData !== undefined) return emitLater(deps, input, id, fanned, answer);
  const item = outboxItem(input, id, fanned);
  const entered = performance.now();
  return deps.pipeline.commit(item).then(() => announced(deps, input, item, entered, answer === undefined ? id : answer));
}

/** an event whose deliveries or points take a turn of their own to find */
async function emitLater(deps: EmitDeps, input: EmitInput, id: string, fanned: NewDelivery[] | Promise<NewDelivery[]>, answer: unknown): Promise<unknown> {
  const item = outboxItem(input, id, Array.isArray(fanned) ? fanned : await fanned);
  // docs/timeseries.md#sending-points: points for the project's tsdb modules, written with this commit's batch
  if (input.event.eventData.timeSeriesData !== undefined) item.points = await pointsOfEvent(deps.pipeline.projectModules, input.projectId, input.event);
  // one transaction with the other events of this moment (group-commit.ts): durable before we answer
  const entered = performance.now();
  await deps.pipeline.commit(item);
  return announced(deps, input, item, entered, answer === undefined ? id : answer);
}

function outboxItem(input: EmitInput, id: string, deliveries: NewDelivery[]): OutboxItem {
  const item: OutboxItem = { row: { id, projectId: input.projectId, event: input.event, json: input.json }, deliveries };
  if (input.presence) item.presence = input.presence;
  if (input.senderWaits) item.senderWaits = true;
  return item;
}

/** committed: the metric, then the bus (its promise is the caller's answer: a Redis bus answers once published) */
function announced(deps: EmitDeps, input: EmitInput, item: OutboxItem, entered: number, answer: unknown): unknown {
  deps.pipelineMetrics.eventCommitted((performance.now() - entered) / 1000);
  const published = deps.bus.publish('event', { projectId: input.projectId, deviceId: input.event.originDeviceId, event: input.event });
  if (published === PUBLISHED) {
    // the in-process bus published it at once: the answer itself, not a promise the commit's reaction
    // would have to wait a turn of its own for (ports/bus.ts PUBLISHED)
    if (!item.queued) return answer;
    const work = deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
    return work === PUBLISHED ? answer : work.then(() => answer);
  }
  if (!item.queued) return published.then(() => answer);
  return published.then(() => deps.bus.publish('work', { queue: WEBHOOK_QUEUE })).then(() => answer);
}

/**
 * a system event about a device carries its id, class and home (docs/devices.md#mqtt); `timestamp`
 * is deps.ids.timestamp(now): made once per millisecond (a connect storm makes one per connect)
 */
export function deviceSystemEvent(
  device: { id: number; deviceClass: string; homeId: number | null },
  eventType: string,
  eventData: Record<string, unknown>,
  timestamp: string,
): EventRecord {
  const e: EventRecord = {
    eventType,
    eventData,
    timestamp,
    originDeviceId: device.id,
    originDeviceClass: device.deviceClass,
  };
  if (device.homeId !== null) e.homeId = device.homeId;
  return e;
}
