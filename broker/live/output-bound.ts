// docs/devices.md#limits: every connection has a bound on unsent output (limits.connectionOutputBytes). A
// peer that stops reading makes the server buffer what it is sent; past the bound the connection
// is closed, logged once (general log, source broker) and counted in /metrics
// (hearth_broker_slow_consumers_closed_total), so no client can make the server hold more than
// that for it, whatever it asks for.
// - MQTT (over TCP, TLS or WebSocket): Aedes writes every packet to its `conn` stream, from many
//   places (deliveries, retries, reloads); the stream's write is wrapped so each write is followed
//   by one comparison. Unsent is the stream's writableLength, plus the WebSocket's bufferedAmount
//   when the stream is ws's createWebSocketStream.
// - Other WebSockets (command, KV, user streams): send.ts compares bufferedAmount after each send.
import type { Client } from 'aedes';
import type { WebSocket } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import type { BrokerCore } from '../core.js';
import { brokerLog } from '../general-log.js';
import { sessionOf } from '../session.js';
import type { OutputTransport } from '../metrics.js';

/** who is on the other end, for the log line (set when the socket opens) */
export interface OutputOwner {
  transport: OutputTransport;
  projectId: number | null;
  caller: Caller | undefined;
  /** e.g. "KV WebSocket of device 12" */
  name: string;
}

/** the one close of a connection that stopped reading: log line, counter, process log */
export function closedSlow(ctx: BrokerCore, owner: OutputOwner, unsent: number): void {
  const limit = ctx.deps.options.connectionOutputBytes;
  ctx.metrics.slowConsumersClosed[owner.transport]++;
  ctx.deps.logger.info({ transport: owner.transport, unsent, limit }, `${owner.name} closed: it does not read its output`);
  brokerLog(
    ctx,
    owner.projectId,
    owner.caller,
    'warn',
    `${owner.name} closed: ${unsent} bytes unsent passed the ${limit}-byte limit (limits.connectionOutputBytes); the client does not read`,
  );
}

interface Conn {
  write: (...args: unknown[]) => boolean;
  writableLength: number;
  destroyed: boolean;
  destroy(err?: Error): void;
  /** Aedes links its client to the stream */
  client?: Client;
}

export class SlowConsumerError extends Error {
  override name = 'SlowConsumerError';
}

/** per broker: the one bounded write every MQTT stream of it gets, and the WebSocket under each MQTT-over-WebSocket stream */
const bounds = new WeakMap<BrokerCore, { write: Conn['write']; wsOf: WeakMap<Conn, WebSocket> }>();

/**
 * call right after aedes.handle(); `ws` is the WebSocket under the stream for MQTT over
 * WebSocket. The device is known only after CONNECT: the owner is read when the bound is passed.
 * One function shared by every connection of the broker (no closure per connection: memory per
 * device at fleet size, issue #25); it finds the client through the stream and the stream's own
 * write on its prototype.
 */
export function boundMqttOutput(ctx: BrokerCore, client: Client, ws?: WebSocket): void {
  let bound = bounds.get(ctx);
  if (!bound) bounds.set(ctx, (bound = boundedWrite(ctx)));
  const conn = (client as unknown as { conn: Conn }).conn;
  if (ws) bound.wsOf.set(conn, ws);
  conn.write = bound.write;
}

function boundedWrite(ctx: BrokerCore): { write: Conn['write']; wsOf: WeakMap<Conn, WebSocket> } {
  const limit = ctx.deps.options.connectionOutputBytes;
  const wsOf = new WeakMap<Conn, WebSocket>();
  const write = function (this: Conn, ...args: unknown[]): boolean {
    const ok = (Object.getPrototypeOf(this) as Conn).write.apply(this, args);
    // destroyed: closed here already (or by anything else): nothing more to bound
    if (this.destroyed) return ok;
    const ws = wsOf.get(this);
    const unsent = this.writableLength + (ws?.bufferedAmount ?? 0);
    if (unsent > limit) {
      const s = sessionOf(this.client);
      const transport = ws ? 'mqtt_ws' : 'mqtt_tcp';
      const name = s ? `MQTT connection of device ${s.device.id}` : 'MQTT connection';
      closedSlow(ctx, { transport, projectId: s?.device.projectId ?? null, caller: s?.caller(), name }, unsent);
      // Aedes sees the error, closes the client and ends its session (presence, will)
      this.destroy(new SlowConsumerError(`${unsent} bytes unsent`));
      ws?.terminate();
    }
    return ok;
  };
  return { write, wsOf };
}
