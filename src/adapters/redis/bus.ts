// Redis Bus: one pub/sub channel per topic, JSON payloads, a dedicated subscriber connection.
// A node hears its own publishes back through Redis, so local and remote subscribers see one
// order. While Redis is down, publishes wait in the client's offline queue and subscriptions are
// restored on reconnect by ioredis; a message published while nobody listens is lost, which
// is why nothing that must survive travels only on the bus. A topic's channel is subscribed while
// the node has a handler for it, and only then.
import { EventEmitter } from 'node:events';
import type { Bus, BusTopic } from '../../ports/bus.js';
import { closeRedis, duplicateRedis, type RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';

export async function createRedisBus(opts: { client: RedisClient; keys: RedisKeys; onError?: (err: Error) => void }): Promise<Bus> {
  const sub = await duplicateRedis(opts.client, opts.onError);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  // channel → topic, for the messages of the subscriber connection
  const topics = new Map<string, BusTopic>();
  sub.on('message', (channel: string, message: string) => {
    const topic = topics.get(channel);
    if (topic === undefined) return;
    let msg: unknown;
    try {
      msg = JSON.parse(message);
    } catch (err) {
      opts.onError?.(err as Error);
      return;
    }
    local.emit(topic, msg);
  });
  const subscribed = new Map<BusTopic, Promise<void>>();
  /** a topic's UNSUBSCRIBE in flight: a new SUBSCRIBE waits for it, or its reply would undo it */
  const leaving = new Map<BusTopic, Promise<void>>();

  const ensureSubscribed = (topic: BusTopic) => {
    if (!subscribed.has(topic)) {
      const p = (leaving.get(topic) ?? Promise.resolve())
        .then(() => {
          const channel = opts.keys.busChannel(topic);
          topics.set(channel, topic);
          return sub.subscribe(channel);
        })
        .then(() => undefined);
      p.catch((err: Error) => {
        subscribed.delete(topic);
        opts.onError?.(err);
      });
      subscribed.set(topic, p);
    }
    return subscribed.get(topic)!;
  };

  return {
    async publish(topic, msg) {
      await opts.client.publish(opts.keys.busChannel(topic), JSON.stringify(msg));
    },
    subscribe(topic, handler) {
      const h = (m: any) => {
        try {
          handler(m);
        } catch (err) {
          opts.onError?.(err as Error);
        }
      };
      local.on(topic, h);
      void ensureSubscribed(topic);
      return () => {
        local.off(topic, h);
        // a node with nobody listening to a topic stops receiving it (browser event streams
        // come and go: a broker without one should not parse every event of the cluster)
        const live = subscribed.get(topic);
        if (local.listenerCount(topic) > 0 || !live) return;
        subscribed.delete(topic);
        const gone = live
          .then(() => (sub.status === 'ready' ? sub.unsubscribe(opts.keys.busChannel(topic)) : undefined))
          .then(
            () => undefined,
            (err: Error) => opts.onError?.(err),
          );
        leaving.set(topic, gone);
        void gone.then(() => leaving.get(topic) === gone && leaving.delete(topic));
      };
    },
    async ready() {
      await Promise.all(subscribed.values());
    },
    async close() {
      local.removeAllListeners();
      await closeRedis(sub);
    },
  };
}
