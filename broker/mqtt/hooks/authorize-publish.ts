// Aedes authorizePublish (docs/devices.md#mqtt). Every device publish is handled here, by topic kind, and
// never forwarded by Aedes itself:
// - Aedes sends a QoS 1 PUBACK before its `published` hook runs; an event must be committed
//   before its PUBACK, so the work happens in this hook, which Aedes awaits first.
// - a device's raw publish must reach nobody: KV changes go out as the stored change with its
//   `rev` (through the bus), and nobody may subscribe to events. So after handling, the packet
//   is pointed at a topic no client can subscribe to.
// - Aedes drops the connection when this hook answers an error, and docs/api.md says a foreign topic,
//   an over-rate or an invalid payload is dropped and logged with the connection kept. Only a
//   failure of ours (store down) answers an error: no PUBACK, so the device sends it again.
import type { Client, PublishPacket } from 'aedes';
import { isAppError } from '../../../src/domain/errors.js';
import type { RateDecision } from '../../../src/ports/rate-limiter.js';
import type { BrokerContext } from '../../context.js';
import { brokerLog, clip } from '../../general-log.js';
import { sessionOf, type DeviceSession } from '../../session.js';
import { publishKindOf, type PublishKind } from '../../topics.js';
import { PayloadError } from '../published/payload.js';
import { eventPublished } from '../published/event.js';
import { kvPublished } from '../published/kv.js';
import { dataPublished } from '../published/data.js';
import { bulkDataPublished } from '../published/bulk-data.js';
import { commandAckPublished } from '../published/command-ack.js';

/** `$` topics are not matched by wildcards [MQTT-4.7.2-1] and no device may subscribe here */
export const CONSUMED_TOPIC = '$hearth/consumed';

/** a handler may throw at once (a payload refused) or reject; what it resolves with is not used */
type Handler = (ctx: BrokerContext, client: Client, s: DeviceSession, packet: PublishPacket, kind: PublishKind) => Promise<unknown>;
const HANDLERS: Record<PublishKind['kind'], Handler> = {
  event: eventPublished,
  kv: kvPublished,
  data: dataPublished,
  commandAck: commandAckPublished,
  bulkData: bulkDataPublished,
};

export function authorizePublish(ctx: BrokerContext) {
  return (client: Client | null, packet: PublishPacket, done: (err?: Error | null) => void): void => {
    const s = sessionOf(client);
    // a will Aedes finds without its client (another node's, or a stale one): never ours to send
    if (!client || !s) return done(new Error('publish without a device session'));
    handle(ctx, client, s, packet, done);
  };
}

/** one device publish on its way through the steps */
interface Publishing {
  client: Client;
  s: DeviceSession;
  packet: PublishPacket;
  /** what the topic is to this device; undefined: not a topic it may publish to */
  kind: PublishKind | undefined;
  /** the topic's handler was called: a rejection from then on may be the device's mistake (refused) */
  handling: boolean;
}

/**
 * one step of a publish: false drops it (the steps after it are skipped); a throw is our failure
 * (no PUBACK); a promise answers later whether the publish goes on (the last step's: it is done)
 */
type PublishStep = (ctx: BrokerContext, p: Publishing) => Promise<unknown> | boolean;

/** a device publish's steps, in order; whatever they decide, the packet is then consumed (CONSUMED_TOPIC) */
export const PUBLISH_STEPS: readonly PublishStep[] = [rateLimit, topicAllowed, handledByKind];

/**
 * the publish's steps, then Aedes is told: the packet consumed, or our failure (no PUBACK). Not an
 * async function, and neither is handledByKind: a step that decides at once is not awaited, and
 * one that answers later is chained (an async frame each was a share of an event's CPU, issue #26)
 */
function handle(ctx: BrokerContext, client: Client, s: DeviceSession, packet: PublishPacket, done: (err?: Error | null) => void): void {
  const seq = s.publishes++;
  let r: Promise<unknown> | boolean;
  let p: Publishing;
  try {
    const kind = publishKindOf(s.device.id, packet.topic);
    if (kind) ctx.metrics.publishes[kind.kind]++;
    p = { client, s, packet, kind, handling: false };
    r = stepsFrom(ctx, p, 0);
  } catch (err) {
    answer(s, seq, err as Error, packet, done);
    return;
  }
  if (r === true || r === false) answer(s, seq, null, packet, done);
  else
    r.then(
      () => answer(s, seq, null, packet, done),
      // the handler's refusal is judged here, not in a promise of handledByKind's own: one promise
      // and one turn less per event (issue #26); an earlier step's rejection (a limiter's) is ours
      (err: Error) => answer(s, seq, p.handling && refused(ctx, p, err) ? null : err, packet, done),
    );
}

/**
 * [MQTT-4.6.0-2]: PUBACKs leave in the order their PUBLISHes came. Aedes hands every publish of a
 * socket read to this hook at once and writes each one's PUBACK when told, and their work ends in
 * another order: a publish dropped is answered at once while the events before it wait for their
 * commit, and the first event of a device in no home waits for its general-log line after the
 * commit its batch shares. So a publish is told to Aedes once those received before it on its
 * connection were; one that is ready before its turn waits in the session (rarely: the events of
 * one commit are answered in the order they came)
 */
function answer(s: DeviceSession, seq: number, err: Error | null, packet: PublishPacket, done: (err?: Error | null) => void): void {
  if (seq !== s.answered) {
    (s.early ??= new Map()).set(seq, { err, packet, done });
    return;
  }
  tell(s, err, packet, done);
  const early = s.early;
  if (!early) return;
  for (let next = early.get(s.answered); next; next = early.get(s.answered)) {
    early.delete(s.answered);
    tell(s, next.err, next.packet as PublishPacket, next.done);
  }
  if (early.size === 0) s.early = undefined;
}

/** Aedes told, in its turn: consumed, or our failure (no PUBACK) */
function tell(s: DeviceSession, err: Error | null, packet: PublishPacket, done: (err?: Error | null) => void): void {
  // before done: Aedes may hand this connection's next publishes to the hook from inside it
  s.answered++;
  if (err) done(err);
  else consumed(packet, done);
}

/** PUBLISH_STEPS from the i-th on: false as soon as one drops the publish; a promise once one answers later */
function stepsFrom(ctx: BrokerContext, p: Publishing, i: number): Promise<unknown> | boolean {
  for (; i < PUBLISH_STEPS.length; i++) {
    const r = PUBLISH_STEPS[i](ctx, p);
    if (r === false) return false;
    if (r !== true) {
      const next = i + 1;
      // the last step's answer is the publish's (the event's handler, every event): no promise more
      return next === PUBLISH_STEPS.length ? r : r.then((ok) => (ok ? stepsFrom(ctx, p, next) : false));
    }
  }
  return true;
}

/** Aedes goes on with the packet inside done: what throws there is not the publish's failure */
function consumed(packet: PublishPacket, done: (err?: Error | null) => void): void {
  packet.topic = CONSUMED_TOPIC;
  packet.retain = false;
  done(null);
}

/** docs/api.md#errors: a per-device rate; excess is dropped and logged (once per window, not once per packet) */
function rateLimit(ctx: BrokerContext, p: Publishing): Promise<boolean> | boolean {
  const limiter = ctx.deps.publishLimiter;
  const key = `d:${p.s.device.id}`;
  // the in-memory limiter (every broker's: roles/broker.ts) answers at once
  if (limiter.consumeNow) return rated(ctx, p, limiter.consumeNow(key));
  return limiter.consume(key).then((rate) => rated(ctx, p, rate));
}

function rated(ctx: BrokerContext, { s, packet }: Publishing, rate: RateDecision): boolean {
  if (rate.allowed) return true;
  const why = 'the device publishes faster than its rate limit; excess publishes are dropped';
  if (ctx.throttle.allow(`rate:${s.device.id}`)) dropped(ctx, s, packet.topic, why);
  counted(ctx, s, packet.topic, 'rate_limit', why);
  return false;
}

/** a device publishes only to its own topics */
function topicAllowed(ctx: BrokerContext, { s, packet, kind }: Publishing): boolean {
  if (kind) return true;
  const why = `not a topic device ${s.device.id} may publish to`;
  dropped(ctx, s, packet.topic, why);
  counted(ctx, s, packet.topic, 'topic', why);
  return false;
}

/**
 * the handler of the topic's kind (published/); the device's mistakes are dropped, not its
 * connection: a throw here, or a rejection of its promise in `handle`, which judges it
 */
function handledByKind(ctx: BrokerContext, p: Publishing): Promise<unknown> | false {
  p.handling = true;
  try {
    return HANDLERS[p.kind!.kind](ctx, p.client, p.s, p.packet, p.kind!);
  } catch (err) {
    if (refused(ctx, p, err)) return false;
    throw err;
  }
}

/** whether the failure is the device's mistake (then dropped and logged here) rather than ours */
function refused(ctx: BrokerContext, { s, packet }: Publishing, err: unknown): boolean {
  // a RangeError is the payload's doing too (a stack overflow in something recursive): the
  // device's mistake, never a reason to cut its connection
  if (!(err instanceof PayloadError || err instanceof RangeError || isAppError(err))) return false;
  const why = describe(err);
  dropped(ctx, s, packet.topic, why);
  counted(ctx, s, packet.topic, isAppError(err) ? err.reason.toLowerCase() : 'payload', why);
  return true;
}

/** every drop: the metric, and the process log's sampled warn (drop-log.ts) */
function counted(ctx: BrokerContext, s: DeviceSession, topic: string, reason: string, why: string): void {
  ctx.metrics.dropped(reason);
  ctx.drops.dropped(reason, () => `device ${s.device.id} to ${clip(topic)}: ${clip(why, 200)}`);
}

function describe(err: Error): string {
  if (!isAppError(err)) return err.message;
  const issues = err.data?.issues as { path: string; message: string }[] | undefined;
  return issues?.length ? `${err.reason}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}` : err.reason;
}

function dropped(ctx: BrokerContext, s: DeviceSession, topic: string, why: string): void {
  brokerLog(ctx, s.device.projectId, s.caller(), 'warn', `dropped MQTT publish to ${clip(topic)} from device ${s.device.id}: ${clip(why, 500)}`);
}
