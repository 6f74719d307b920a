// docs/devices.md#kv-sync: `reload` (the whole store with its `rev`) to one MQTT connection: right after it
// subscribes to its kv topic, and when it publishes `{"action":"reload"}`. Sent to that
// connection alone, at the QoS it was granted; a connection not subscribed gets nothing.
import type { Client } from 'aedes';
import { deviceStore, reloadMessage } from '../src/domain/kv/index.js';
import type { PresenceDevice } from '../src/domain/presence/index.js';
import type { BrokerContext } from './context.js';
import { kvTopic } from './topics.js';

type Subscribed = { subscriptions: Record<string, { qos: number } | undefined> };

export async function sendReload(ctx: BrokerContext, client: Client, device: PresenceDevice): Promise<void> {
  const topic = kvTopic(device.id);
  if (!(client as Client & Subscribed).subscriptions[topic] || client.closed) return;
  const message = await reloadMessage({ deps: ctx.deps, input: { target: deviceStore(device) } });
  const sub = (client as Client & Subscribed).subscriptions[topic];
  if (!sub || client.closed) return;
  ctx.metrics.kvSyncs.mqtt++;
  // a persistent session at its queue bound (docs/devices.md#mqtt) gets it at QoS 0, not stored
  const full = !client.clean && ctx.persistence.queuedOf(client.id) >= ctx.deps.options.maxQueuedPerSession;
  const qos = sub.qos === 0 || full ? 0 : 1;
  await new Promise<void>((resolve) =>
    client.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(message)), qos, retain: false, dup: false }, () => resolve()),
  );
}
