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
}

export class SlowConsumerError extends Error {
  override name = 'SlowConsumerError';
}

/**
 * call right after aedes.handle(); `ws` is the WebSocket under the stream for MQTT over
 * WebSocket. The device is known only after CONNECT: the owner is read when the bound is passed.
 */
export function boundMqttOutput(ctx: BrokerCore, client: Client, ws?: WebSocket): void {
  const conn = (client as unknown as { conn: Conn }).conn;
  const limit = ctx.deps.options.connectionOutputBytes;
  const write = conn.write;
  let closed = false;
  conn.write = function (this: Conn, ...args: unknown[]): boolean {
    const ok = write.apply(this, args);
    if (closed) return ok;
    const unsent = conn.writableLength + (ws?.bufferedAmount ?? 0);
    if (unsent > limit) {
      closed = true;
      const s = sessionOf(client);
      const transport = ws ? 'mqtt_ws' : 'mqtt_tcp';
      const name = s ? `MQTT connection of device ${s.device.id}` : 'MQTT connection';
      closedSlow(ctx, { transport, projectId: s?.device.projectId ?? null, caller: s?.caller(), name }, unsent);
      // Aedes sees the error, closes the client and ends its session (presence, will)
      conn.destroy(new SlowConsumerError(`${unsent} bytes unsent`));
      ws?.terminate();
    }
    return ok;
  };
}
