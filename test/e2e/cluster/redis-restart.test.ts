// A Redis restart must not need a Hearth restart: clients reconnect, the bus resubscribes, and
// the rate limiter keeps answering (from its in-memory insurance) while Redis is away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis, type RedisClient } from '../../../src/adapters/redis/client.js';
import { redisKeys } from '../../../src/adapters/redis/keys.js';
import { createRedisBus } from '../../../src/adapters/redis/bus.js';
import { createRedisRateLimiter } from '../../../src/adapters/redis/rate-limiter.js';
import type { Bus } from '../../../src/ports/bus.js';
import { startOwnRedis, type OwnRedis } from '../../helpers/redis-server.js';

const hasRedisServer = await import('node:child_process').then((cp) => cp.spawnSync('redis-server', ['--version']).status === 0);

describe.skipIf(!hasRedisServer)('Redis restarted under the adapters', () => {
  let redis: OwnRedis;
  let client: RedisClient;
  let limiterClient: RedisClient;
  let bus: Bus;
  const errors: Error[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis();
    client = await connectRedis({ url: redis.url, onError: (e) => errors.push(e) });
    limiterClient = await connectRedis({ url: redis.url, offlineQueue: false, onError: (e) => errors.push(e) });
    bus = await createRedisBus({ client, keys: redisKeys('t:'), onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await bus?.close();
    if (client) await closeRedis(client);
    if (limiterClient) await closeRedis(limiterClient);
    await redis?.stop();
  });

  it('delivers bus messages again after Redis comes back, without a restart of ours', async () => {
    const got: number[] = [];
    bus.subscribe('command', (m) => got.push(m.deviceId));
    await bus.ready?.();
    await bus.publish('command', { deviceId: 1, command: { action: 'a', parameters: {} } });
    await expect.poll(() => got, { timeout: 15_000 }).toEqual([1]);

    await redis.stop();
    const limiter = createRedisRateLimiter({ client: limiterClient, keys: redisKeys('t:'), perSecond: 100, burst: 100 });
    // while Redis is down the limiter answers from memory rather than holding the request
    const during = await limiter.consume('k');
    expect(during.allowed).toBe(true);
    // the outage is reported (the clients' failed reconnects), not thrown
    await expect.poll(() => errors.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await redis.start();

    // publish until one gets through: the client reconnects with a capped backoff (≤ 2 s)
    const start = Date.now();
    let n = 100;
    while (!got.some((d) => d >= 100) && Date.now() - start < 15_000) {
      await Promise.race([
        bus.publish('command', { deviceId: n++, command: { action: 'a', parameters: {} } }).catch(() => {}),
        new Promise((r) => setTimeout(r, 200)),
      ]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(got.some((d) => d >= 100)).toBe(true);
  });
});
