// The command outbox on this node's connections (docs/concepts.md#command-outbox). A connection
// becomes ready for it when it subscribes to its command topic (or Aedes restores that
// subscription) or opens its command WebSocket: it then claims every command due (`fresh`). A
// bus `outbox` message (a command created, on any node) makes each ready connection of the
// device here claim what no connection got yet. Claims of one device run one after another, so
// its commands go out in creation order.
// `delivered` is the transport's word: the PUBACK of a QoS 1 publish; for a QoS 0 subscription
// or a WebSocket, the frame written. QoS 1 publishes of the outbox carry a message id chosen here
// and are NOT stored in Aedes's persistence (the store is their persistence): a persistent
// session therefore never gets them again from Aedes on top of the outbox's own resend.
import type { Client } from 'aedes';
import type { WebSocket } from 'ws';
import { claimCommands, commandDelivered, commandMessage } from '../../src/domain/command/index.js';
import type { CommandRow } from '../../src/ports/store.js';
import type { BrokerCore } from '../core.js';
import type { OutboxAcks } from '../limits/bounded-persistence.js';
import type { DeviceSession } from '../session.js';
import { commandTopic } from '../topics.js';
import { sendText } from './send.js';

/** what the outbox uses of an Aedes client beyond its public type */
type AedesClient = Client & {
  subscriptions: Record<string, { qos: number } | undefined>;
  closed: boolean;
  /** between the CONNECT accepted and the session's stored queue sent: Aedes writes to it already */
  connecting: boolean;
  /** set only once the stored queue is sent, after the CONNACK (and after the SUBACK of a SUBSCRIBE sent right behind it) */
  connected: boolean;
  /** Aedes's next packet identifier of this client (client.js: it wraps at 65535) */
  _nextId: number;
  /** Aedes's QoS > 0 write path (client.js), which keeps a message id given to it */
  deliverQoS(packet: object, cb: () => void): void;
};

function noop(): void {}

export class OutboxSender implements OutboxAcks {
  /** device id → the tail of its claims on this node */
  private readonly chains = new Map<number, Promise<void>>();
  /** client → message id → [command id, connection id]: QoS 1 outbox publishes waiting for their PUBACK */
  private readonly pending = new WeakMap<object, Map<number, [string, string]>>();

  constructor(private readonly ctx: BrokerCore) {}

  /** a connection just became ready: everything due goes out on it */
  opened(s: DeviceSession): void {
    this.inOrder(s.device.id, () => this.flush(s, true));
  }

  /** new commands for the device: each ready connection here claims what no connection got yet */
  notify(deviceId: number): void {
    for (const s of this.ctx.connections.sessionsOf(deviceId)) if (this.ready(s)) this.inOrder(deviceId, () => this.flush(s, false));
  }

  owns(client: { id: string }, messageId: number | undefined): boolean {
    return messageId !== undefined && !!this.pending.get(client)?.has(messageId);
  }

  acked(client: { id: string }, messageId: number | undefined): void {
    const map = this.pending.get(client);
    const entry = messageId === undefined ? undefined : map?.get(messageId);
    if (!map || !entry) return;
    map.delete(messageId!);
    this.confirm(entry[0], entry[1]);
  }

  /** resolves once every claim begun so far is done */
  async settled(): Promise<void> {
    while (this.chains.size) await Promise.all([...this.chains.values()]);
  }

  private ready(s: DeviceSession): boolean {
    if (s.transport === 'websocket') return true;
    const sub = (s.conn as unknown as AedesClient).subscriptions[commandTopic(s.device.id)];
    return !!sub && sub.qos !== 128;
  }

  private async flush(s: DeviceSession, fresh: boolean): Promise<void> {
    if (!this.ready(s) || this.gone(s)) return;
    const rows = await claimCommands({ deps: this.ctx.deps, input: { deviceId: s.device.id, connectionId: s.connectionId, fresh } });
    // a connection that ended meanwhile leaves them `sent`: they go out on the next one
    for (const r of rows) this.write(s, r);
  }

  private gone(s: DeviceSession): boolean {
    if (s.transport === 'websocket') return (s.conn as WebSocket).readyState !== 1;
    // Aedes's own test for a client it writes to (write.js). Not `connected` alone: Aedes sets it
    // only once the session's stored queue is read from its persistence, after the CONNACK; a
    // restored subscription (connackSent) always comes before that, and a SUBSCRIBE sent right
    // behind the CONNACK can too (the Redis persistence's read is a round trip). Taking that gap
    // for a closed client sent nothing on the new connection (issue #25's cluster race)
    const c = s.conn as unknown as AedesClient;
    return c.closed || !(c.connected || c.connecting);
  }

  private write(s: DeviceSession, r: CommandRow): void {
    const text = JSON.stringify(commandMessage(r));
    if (s.transport === 'websocket') {
      const ws = s.conn as WebSocket;
      sendText(this.ctx, ws, text, (err) => {
        if (!err) this.confirm(r.id, s.connectionId);
      });
      this.ctx.metrics.commands.websocket++;
      return;
    }
    const client = s.conn as unknown as AedesClient;
    const topic = commandTopic(s.device.id);
    const sub = client.subscriptions[topic];
    if (!sub || this.gone(s)) return;
    const payload = Buffer.from(text);
    this.ctx.metrics.commands.mqtt++;
    if (sub.qos === 0) {
      client.publish({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }, () => {
        // Aedes reports a failed QoS 0 write only by closing the client
        if (!this.gone(s)) this.confirm(r.id, s.connectionId);
      });
      return;
    }
    // [MQTT-2.3.1-2] a packet identifier not in use on this connection: Aedes's own next one
    const messageId = client._nextId;
    client._nextId = messageId >= 65535 ? 1 : messageId + 1;
    let map = this.pending.get(client);
    if (!map) this.pending.set(client, (map = new Map()));
    map.set(messageId, [r.id, s.connectionId]);
    client.deliverQoS({ cmd: 'publish', topic, payload, qos: 1, retain: false, dup: false, messageId }, noop);
  }

  private confirm(commandId: string, connectionId: string): void {
    commandDelivered({ deps: this.ctx.deps, input: { commandId, connectionId } }).catch((err) =>
      this.ctx.deps.logger.warn({ err, commandId }, 'recording a command delivery failed'),
    );
  }

  /** `step` is an async function: it never throws, it rejects */
  private inOrder(deviceId: number, step: () => Promise<void>): void {
    const prev = this.chains.get(deviceId);
    // no claim of this device under way (every connect of a storm): it starts now, not a turn
    // later behind a resolved promise (issue #25: two promises and a closure fewer a connect)
    const next: Promise<void> = (prev ? prev.then(step) : step()).then(
      () => {
        this.settle(deviceId, next);
      },
      (err) => {
        this.ctx.deps.logger.warn({ err, deviceId }, 'sending queued commands failed');
        this.settle(deviceId, next);
      },
    );
    this.chains.set(deviceId, next);
  }

  /** the chain of a device ends with its last claim */
  private settle(deviceId: number, done: Promise<void>): void {
    if (this.chains.get(deviceId) === done) this.chains.delete(deviceId);
  }
}
