// Picks the realtime adapters for a mode: in-process (embedded) or Redis (cluster). The same
// ports either way; only these objects change (docs/architecture.md#processes: "only the adapters change").
import type { Bus } from '../ports/bus.js';
import type { Presence } from '../ports/presence.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { MqttSessions } from '../ports/mqtt-sessions.js';
import { createLocalMqttSessions } from './local/mqtt-sessions.js';
import { createLocalBus } from './local/bus.js';
import { createLocalPresence } from './local/presence.js';
import { createMemoryRateLimiter } from './local/rate-limiter.js';
// the Redis adapters are loaded only in cluster mode: their client library is a good share of an
// embedded start's module loading (`npm run bench -- startup`)
import type { RedisClient } from './redis/client.js';
import type { RedisKeys } from './redis/keys.js';

export interface RealtimeOptions {
  redisUrl: string | null;
  redisPrefix: string;
  rateLimit: { perSecond: number; burst: number };
  presence: { heartbeatMs: number; nodeTimeoutMs: number };
  onError: (err: Error, where: string) => void;
}

export interface Realtime {
  mode: 'embedded' | 'cluster';
  bus: Bus;
  presence: Presence;
  rateLimiter: RateLimiter;
  /** the broker's persistent MQTT sessions per device (docs/devices.md#mqtt bounds) */
  mqttSessions: MqttSessions;
  /** cluster mode: the shared client and key names, for Aedes's Redis emitter and persistence */
  redis?: { url: string; client: RedisClient; keys: RedisKeys; prefix: string };
  /** throws when a dependency is unreachable (for /readyz) */
  check(): Promise<void>;
  close(): Promise<void>;
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** a Redis never reached at start-up: one line naming the setting (the server's and the admin CLI's) */
export const redisUnavailable = (url: string, cause: unknown) =>
  new RedisUnavailableError(`HEARTH_REDIS_URL: cannot reach Redis at ${url}: ${(cause as Error).message}`);

export async function createRealtime(opts: RealtimeOptions): Promise<Realtime> {
  if (!opts.redisUrl) {
    const bus = createLocalBus();
    const presence = createLocalPresence();
    return {
      mode: 'embedded',
      bus,
      presence,
      rateLimiter: createMemoryRateLimiter(opts.rateLimit),
      mqttSessions: createLocalMqttSessions(),
      check: async () => {},
      async close() {
        await presence.close();
        await bus.close();
      },
    };
  }
  const [{ closeRedis, connectRedis }, { redisKeys }, { createRedisBus }, { createRedisPresence }, { createRedisRateLimiter }, { createRedisMqttSessions }] =
    await Promise.all([
      import('./redis/client.js'),
      import('./redis/keys.js'),
      import('./redis/bus.js'),
      import('./redis/presence.js'),
      import('./redis/rate-limiter.js'),
      import('./redis/mqtt-sessions.js'),
    ]);
  const keys = redisKeys(opts.redisPrefix);
  let client: RedisClient;
  let limiterClient: RedisClient;
  try {
    client = await connectRedis({ url: opts.redisUrl, onError: (e) => opts.onError(e, 'redis') });
  } catch (e) {
    throw redisUnavailable(opts.redisUrl, e);
  }
  try {
    // fails fast while Redis is away, so the limiter falls back to memory instead of waiting
    limiterClient = await connectRedis({ url: opts.redisUrl, offlineQueue: false, onError: (e) => opts.onError(e, 'redis rate limiter') });
  } catch (e) {
    await closeRedis(client);
    throw redisUnavailable(opts.redisUrl, e);
  }
  const bus = await createRedisBus({ client, keys, onError: (e) => opts.onError(e, 'redis bus') });
  const presence = await createRedisPresence({ client, keys, ...opts.presence, onError: (e) => opts.onError(e, 'redis presence') });
  return {
    mode: 'cluster',
    bus,
    presence,
    rateLimiter: createRedisRateLimiter({ client: limiterClient, keys, ...opts.rateLimit, onError: (e) => opts.onError(e, 'redis failure counter') }),
    mqttSessions: createRedisMqttSessions({ client, keys }),
    redis: { url: opts.redisUrl, client, keys, prefix: opts.redisPrefix },
    async check() {
      if (client.status !== 'ready') throw new Error('Redis is not connected');
      await client.ping();
    },
    async close() {
      await presence.close();
      await bus.close();
      await closeRedis(limiterClient);
      await closeRedis(client);
    },
  };
}
