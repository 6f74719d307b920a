// docs/devices.md#kv-sync: `reload` (the whole store with its `rev`) to one MQTT connection: right after it
// subscribes to its kv topic, and when it publishes `{"action":"reload"}`. Sent to that
// connection alone, at the QoS it was granted; a connection not subscribed gets nothing.
// A connection has at most one reload being built or written (until Aedes's write callback,
// which waits for the socket to drain): requests meanwhile merge into one more, built when it
// is done, so the device still gets a current store and a client asking 50 times gets 2.
// A persistent session gets its reloads at QoS 0: a reload is never queued for an offline
// session, since it gets a fresh one when it comes back (docs/devices.md#kv-sync).
import type { Client } from 'aedes';
import { deviceStore, reloadMessage } from '../../src/domain/kv/index.js';
import type { BrokerContext } from '../context.js';
import { sessionOf, type DeviceSession } from '../session.js';
import { kvTopic } from '../topics.js';

type Subscribed = { subscriptions: Record<string, { qos: number } | undefined> };

/**
 * asks for a reload on this connection; merged into the one in progress, if any. `withAck`: asked
 * in the same turn as Aedes wrote the SUBACK (still corked until the next tick): the SUBACK then
 * waits for the reload and both leave in one socket write instead of two (issue #25: a connect
 * storm's socket writes; the device waits for its store either way)
 */
export function requestReload(ctx: BrokerContext, client: Client, withAck = false): void {
  const s = sessionOf(client);
  if (!s) return;
  if (s.reload) {
    s.reload = 'again';
    return;
  }
  s.reload = 'busy';
  let held = withAck && !client.closed;
  if (held) client.conn.cork();
  /** the SUBACK goes (with the reload, once Aedes has written it in its own setImmediate) */
  const release = (now: boolean) => {
    if (!held) return;
    held = false;
    if (now) client.conn.uncork();
    else setImmediate(() => client.conn.uncork());
  };
  void reloadWhileAsked(ctx, client, s, release);
}

async function reloadWhileAsked(ctx: BrokerContext, client: Client, s: DeviceSession, release: (now: boolean) => void): Promise<void> {
  try {
    do {
      s.reload = 'busy';
      await sendReload(ctx, client, s, release);
    } while ((s.reload as DeviceSession['reload']) === 'again' && !client.closed);
  } catch (err) {
    ctx.deps.logger.warn({ err, deviceId: s.device.id }, 'kv reload failed');
  } finally {
    release(true);
    s.reload = undefined;
  }
}

async function sendReload(ctx: BrokerContext, client: Client, s: DeviceSession, release: (now: boolean) => void): Promise<void> {
  const topic = kvTopic(s.device.id);
  if (!(client as Client & Subscribed).subscriptions[topic] || client.closed) return;
  const message = await reloadMessage({ deps: ctx.deps, input: { target: deviceStore(s.device) } });
  const sub = (client as Client & Subscribed).subscriptions[topic];
  if (!sub || client.closed) return;
  ctx.metrics.kvSyncs.mqtt++;
  const qos = sub.qos === 0 || !client.clean ? 0 : 1;
  await new Promise<void>((resolve) => {
    client.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(message)), qos, retain: false, dup: false }, () => resolve());
    // Aedes writes it in a setImmediate of its own, queued before this one (its callback may
    // wait for the socket to drain: the SUBACK must not wait for that)
    release(false);
  });
}
