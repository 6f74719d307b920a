// The bus → this node's live connections: commands, KV sync messages and revocations (events for
// browser streams: sockets/user-session.ts, subscribed only while a stream is open). Each node delivers to
// its LOCAL connections only; every node gets every bus message of the topics it subscribes. This is the one place that turns bus messages into MQTT publishes, and it writes to
// this node's own Aedes clients (those subscribed to the topic, at the QoS they were granted)
// instead of aedes.publish: nothing goes through Aedes' emitter or persistence, so it stays
// right when brokers later share Aedes through mqemitter-redis (an aedes.publish on every node
// would then reach every subscriber once per node), and it is one step shorter.
import type { Client } from 'aedes';
import type { BusMessages } from '../src/ports/bus.js';
import type { BrokerContext } from './context.js';
import { commandTopic, kvTopic } from './topics.js';
import { sendText } from './live/send.js';
import { brokerLog } from './general-log.js';
import type { DeviceSession } from './session.js';
import { closeSession } from './connections.js';
import type { WebSocket } from 'ws';

function noop(): void {}

type Subscribed = Client & { subscriptions: Record<string, { qos: number } | undefined> };

/**
 * to every local MQTT connection of the device subscribed to the topic. A persistent session
 * queues QoS 1 packets until they are acknowledged; past `maxQueuedPerSession` (docs/devices.md#mqtt) or
 * limits.connectionOutputBytes of payload (docs/devices.md#limits) they go at QoS 0, not stored, and the
 * general log says so once per window. Returns how many
 * connections it wrote to.
 */
function mqttPublish(ctx: BrokerContext, sessions: readonly DeviceSession[], topic: string, text: string): number {
  let payload: Buffer | undefined;
  let n = 0;
  for (const s of sessions) {
    if (s.transport !== 'mqtt') continue;
    const client = s.conn as unknown as Subscribed;
    const sub = client.subscriptions[topic];
    if (!sub || client.closed) continue;
    payload ??= Buffer.from(text);
    let qos: 0 | 1 = sub.qos === 0 ? 0 : 1;
    const { maxQueuedPerSession, connectionOutputBytes } = ctx.deps.options;
    if (
      qos === 1 &&
      s.persistentId &&
      (ctx.persistence.queuedOf(client.id) >= maxQueuedPerSession || ctx.persistence.queuedBytesOf(client.id) >= connectionOutputBytes)
    ) {
      qos = 0;
      if (ctx.throttle.allow(`queue:${s.device.id}`)) {
        brokerLog(
          ctx,
          s.device.projectId,
          s.caller(),
          'warn',
          ctx.persistence.queuedOf(client.id) >= maxQueuedPerSession
            ? `MQTT session of device ${s.device.id} has ${maxQueuedPerSession} unacknowledged messages queued (the limit): ${topic} sent at QoS 0, not stored`
            : `MQTT session of device ${s.device.id} has ${ctx.persistence.queuedBytesOf(client.id)} bytes of unacknowledged messages queued (limits.connectionOutputBytes): ${topic} sent at QoS 0, not stored`,
        );
      }
    }
    client.publish({ cmd: 'publish', topic, payload, qos, retain: false, dup: false }, noop);
    n++;
  }
  return n;
}

function deliverCommand(ctx: BrokerContext, m: BusMessages['command']): void {
  const sessions = ctx.connections.sessionsOf(m.deviceId);
  if (!sessions.length) return;
  // docs/devices.md#mqtt: `{action, parameters}` on /devices/{id}/command and as one WebSocket text frame
  const text = JSON.stringify(m.command);
  ctx.metrics.commands.mqtt += mqttPublish(ctx, sessions, commandTopic(m.deviceId), text);
  for (const s of sessions) {
    if (s.transport !== 'websocket') continue;
    sendText(ctx, s.conn as WebSocket, text);
    ctx.metrics.commands.websocket++;
  }
  const { logger } = ctx.deps;
  if (logger.isLevelEnabled('debug'))
    logger.debug({ deviceId: m.deviceId, action: m.command.action }, `command ${JSON.stringify(m.command.action)} delivered to device ${m.deviceId}`);
}

function deliverKv(ctx: BrokerContext, m: BusMessages['kv']): void {
  // home stores have no live channel (docs/devices.md#kv-sync names device stores only)
  if (m.scope !== 'device') return;
  const sessions = ctx.connections.sessionsOf(m.ownerId);
  if (sessions.length) ctx.metrics.kvSyncs.mqtt += mqttPublish(ctx, sessions, kvTopic(m.ownerId), JSON.stringify(m.message));
  ctx.kvWatchers.deliver(ctx, m.ownerId, m.message);
}

function revoke(ctx: BrokerContext, m: BusMessages['revoke']): void {
  // docs/api.md#credentials: the credential's live MQTT and WebSocket connections close now
  switch (m.kind) {
    case 'device': {
      ctx.connections.closeDevice(m.deviceId);
      ctx.kvWatchers.closeWhere((k) => k.caller.type === 'device' && k.caller.deviceId === m.deviceId);
      // a deleted device leaves nothing to watch; a device whose key was revoked still exists
      void ctx.deps.store.devices.get(m.deviceId).then(
        (d) => d || ctx.kvWatchers.closeWhere((k) => k.deviceId === m.deviceId),
        () => undefined,
      );
      return;
    }
    case 'projectKey':
      ctx.kvWatchers.closeWhere((k) => k.caller.type === 'project key' && k.caller.keyId === m.keyId);
      ctx.streams.closeWhere((c) => c.type === 'project key' && c.keyId === m.keyId);
      return;
    case 'session':
      ctx.kvWatchers.closeWhere((k) => k.caller.type === 'user' && k.caller.tokenHash === m.tokenHash);
      ctx.streams.closeWhere((c) => c.type === 'user' && c.tokenHash === m.tokenHash);
      return;
    case 'deviceCertificate':
      // docs/tls.md#client-certificates: only the connections signed in with that certificate
      for (const s of [...ctx.connections.sessionsOf(m.deviceId)]) if (s.certificate === m.fingerprint) closeSession(s);
      ctx.kvWatchers.closeWhere((k) => k.deviceId === m.deviceId && k.certificate === m.fingerprint);
      return;
  }
}

/** subscribes to the bus; returns the function that stops delivery */
export function startDelivery(ctx: BrokerContext): () => void {
  const { bus } = ctx.deps;
  const offs = [
    bus.subscribe('command', (m) => deliverCommand(ctx, m)),
    // docs/concepts.md#command-outbox: new commands in a device's outbox
    bus.subscribe('outbox', (m) => ctx.outbox.notify(m.deviceId)),
    bus.subscribe('kv', (m) => deliverKv(ctx, m)),
    bus.subscribe('revoke', (m) => revoke(ctx, m)),
  ];
  return () => offs.forEach((off) => off());
}
