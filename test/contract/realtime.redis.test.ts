// The same contracts against the machine's Redis (HEARTH_TEST_REDIS_URL), each under a key prefix
// of its own; plus what only a shared Redis can do: several nodes acting as one.
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createRedisBus } from '../../src/adapters/redis/bus.js';
import { closeRedis, duplicateRedis } from '../../src/adapters/redis/client.js';
import { createRedisPresence } from '../../src/adapters/redis/presence.js';
import { createRedisRateLimiter } from '../../src/adapters/redis/rate-limiter.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../helpers/redis.js';
import { channelPrefix, createRedisEmitter, createRedisPersistence, type PrefixedEmitter } from '../../src/adapters/redis/aedes.js';
import { aedesEmitterContract, aedesPersistenceContract } from './aedes.js';
import { busContract } from './bus.js';
import { presenceContract } from './presence.js';
import { rateLimiterContract } from './rate-limiter.js';
import { mqttSessionsContract } from './mqtt-sessions.js';
import { createRedisMqttSessions } from '../../src/adapters/redis/mqtt-sessions.js';

describe.skipIf(!REDIS_URL)('Redis adapters', () => {
  busContract('redis', async () => {
    const r = await redisFixture();
    const bus = await createRedisBus({ client: r.client, keys: r.keys });
    return { bus, cleanup: async () => (await bus.close(), await r.cleanup()) };
  });
  presenceContract('redis', async () => {
    const r = await redisFixture();
    const presence = await createRedisPresence({ client: r.client, keys: r.keys, heartbeatMs: 1000, nodeTimeoutMs: 3000 });
    return { presence, cleanup: async () => (await presence.close(), await r.cleanup()) };
  });
  mqttSessionsContract('redis', async () => {
    const r = await redisFixture();
    return { sessions: createRedisMqttSessions({ client: r.client, keys: r.keys }), cleanup: () => r.cleanup() };
  });
  rateLimiterContract('redis', async (o) => {
    const r = await redisFixture();
    return { limiter: createRedisRateLimiter({ client: r.client, keys: r.keys, ...o }), cleanup: () => r.cleanup() };
  });

  it('a message published on one node reaches subscribers on another', async () => {
    const r = await redisFixture();
    const a = await createRedisBus({ client: r.client, keys: r.keys });
    const other = await duplicateRedis(r.client);
    const b = await createRedisBus({ client: other, keys: r.keys });
    onTestFinished(async () => {
      await a.close();
      await b.close();
      await closeRedis(other);
      await r.cleanup();
    });
    const got: unknown[] = [];
    b.subscribe('command', (m) => got.push(m));
    await b.ready?.();
    await a.publish('command', { deviceId: 1, command: { action: 'x', parameters: {} } });
    await expect.poll(() => got.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(got).toEqual([{ deviceId: 1, command: { action: 'x', parameters: {} } }]);
  });

  it('nodes share one rate-limit bucket per key', async () => {
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    const a = createRedisRateLimiter({ client: r.client, keys: r.keys, perSecond: 3, burst: 3 });
    const b = createRedisRateLimiter({ client: r.client, keys: r.keys, perSecond: 3, burst: 3 });
    const results = [await a.consume('k'), await b.consume('k'), await a.consume('k'), await b.consume('k')];
    expect(results.map((x) => x.allowed)).toEqual([true, true, true, false]);
  });

  it('nodes share one failure count per key: failed logins on two api nodes add up', async () => {
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    const a = createRedisRateLimiter({ client: r.client, keys: r.keys, perSecond: 3, burst: 3 });
    const b = createRedisRateLimiter({ client: r.client, keys: r.keys, perSecond: 3, burst: 3 });
    const policy = { free: 2, baseMs: 1000, maxMs: 8000, windowMs: 60_000 };
    const waits = [
      await a.failures.fail('login', policy),
      await b.failures.fail('login', policy),
      await a.failures.fail('login', policy),
      await b.failures.fail('login', policy),
    ];
    expect(waits).toEqual([0, 0, 1000, 2000]);
    expect(await a.failures.waitOf('login')).toBeGreaterThan(1000);
    await b.failures.reset('login');
    expect(await a.failures.waitOf('login')).toBe(0);
  });

  it('a node that stops heartbeating loses its devices; they are reported once, by one reaper', async () => {
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    // `dying` heartbeats once, at creation, and never again: a crashed process. The live nodes
    // beat every 100 ms and call a node dead after 2 s of silence: a live node stalled by a busy
    // machine is not taken for a dead one (a reaper judges by its own nodeTimeoutMs)
    const live = { heartbeatMs: 100, nodeTimeoutMs: 2000 };
    const dying = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 'dying', heartbeatMs: 600_000, nodeTimeoutMs: 2000 });
    const s1 = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 's1', ...live });
    const s2 = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 's2', ...live });
    onTestFinished(async () => {
      await s1.close();
      await s2.close();
    });
    const reported: number[][] = [];
    s1.onOrphaned!(async (ids) => void reported.push(ids));
    s2.onOrphaned!(async (ids) => void reported.push(ids));
    await dying.connected(10, 'a');
    await dying.connected(11, 'b');
    await s1.connected(11, 'c'); // device 11 is also connected through a live node: it stays online
    await expect.poll(() => reported.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // positive control for "once": a second node dies after the first was reaped; by the time its
    // device is reported, both reapers have swept several times since, and a second, wrong report
    // of device 10 (or one of device 11) would have come first
    const dying2 = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 'dying2', heartbeatMs: 600_000, nodeTimeoutMs: 2000 });
    await dying2.connected(12, 'd');
    await expect.poll(() => reported.length, { timeout: 15_000 }).toBeGreaterThan(1);
    expect(reported).toEqual([[10], [12]]);
    expect(await s1.count(10)).toBe(0);
    expect(await s1.count(11)).toBe(1);
    expect(await r.client.zrange(r.keys.nodes, 0, -1)).toEqual(expect.arrayContaining(['s1', 's2']));
    expect(await r.client.zrange(r.keys.nodes, 0, -1)).not.toContain('dying');
  });

  it('a dead node with more connections than one reaping transaction holds: each device left with none is reported once', async () => {
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    const dying = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 'dying', heartbeatMs: 600_000, nodeTimeoutMs: 2000 });
    const s1 = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 's1', heartbeatMs: 100, nodeTimeoutMs: 2000 });
    onTestFinished(() => s1.close());
    const reported: number[][] = [];
    s1.onOrphaned!(async (ids) => void reported.push(ids));
    // 600 devices with two connections each on the dying node (1,200: three transactions of
    // 500), and one more there that is also connected through the live node
    const devices = Array.from({ length: 600 }, (_, i) => 1000 + i);
    await Promise.all(devices.flatMap((id) => [dying.connected(id, `x${id}`), dying.connected(id, `y${id}`)]));
    await dying.connected(5000, 'z');
    await s1.connected(5000, 'live');
    await expect.poll(() => reported.length, { timeout: 15_000 }).toBe(1);
    expect([...reported[0]!].sort((a, b) => a - b)).toEqual(devices);
    expect(await s1.count(1000)).toBe(0);
    expect(await s1.count(5000)).toBe(1);
    expect(await r.client.exists(r.keys.nodeConnections('dying'))).toBe(0);
  });

  it('a node writes its live connections back when Redis lost them, and reports their devices', async () => {
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    const node = await createRedisPresence({ client: r.client, keys: r.keys, nodeId: 'n1', heartbeatMs: 50, nodeTimeoutMs: 300 });
    onTestFinished(() => node.close());
    const restored: number[][] = [];
    node.onRestored!(async (ids) => void restored.push(ids));
    expect(await node.connected(20, 'a')).toBe(true);
    expect(await node.connected(21, 'b')).toBe(true);
    expect(await node.connected(21, 'c')).toBe(false);
    expect(await node.disconnected(21, 'c')).toBe(false);
    // what a Redis restarted empty looks like to this node
    await deleteKeys(r.client, r.prefix);
    await expect.poll(() => node.count(20), { timeout: 15_000 }).toBe(1);
    expect(await node.count(21)).toBe(1);
    expect(restored.flat().sort()).toEqual([20, 21]);
    // and a connection that ends before it was written back still ends the device's presence
    await deleteKeys(r.client, r.prefix);
    expect(await node.disconnected(20, 'a')).toBe(true);
  });
});

// what Aedes runs on in cluster mode (src/adapters/redis/aedes.ts): the same suites as its
// in-process twins (realtime.local.test.ts), each emitter and persistence under a prefix of its own
describe.skipIf(!REDIS_URL)('Aedes on Redis', () => {
  const prefixes: string[] = [];
  const fresh = () => {
    const prefix = testPrefix();
    prefixes.push(prefix);
    return { url: REDIS_URL!, prefix, onError: () => {} };
  };
  afterAll(async () => {
    const r = await redisFixture();
    for (const p of prefixes) await deleteKeys(r.client, p);
    await r.cleanup();
  });
  // every topic through Redis (what Aedes's $SYS topics get), and as Aedes uses it: a suite's
  // topics are no `$SYS` topic, so they stay in the node
  const NO_CALLBACK = 'without a callback on emit and on';
  aedesEmitterContract('redis', (opts) => createRedisEmitter({ ...fresh(), shares: () => true }, opts), [NO_CALLBACK]);

  it(`redis emitter: ${NO_CALLBACK} (the emit waits for Redis to hold the subscription, not 100 ms)`, async () => {
    const o = fresh();
    const e = createRedisEmitter({ ...o, shares: () => true });
    const r = await redisFixture();
    onTestFinished(() => r.cleanup());
    const got = new Promise<{ topic: string; payload: unknown }>((resolve) =>
      e.on('hello world', (message, cb) => {
        cb();
        resolve(message as never);
      }),
    );
    // the positive control for "subscribed": Redis counts one subscriber on the prefixed channel
    const channel = `${channelPrefix(o.prefix)}hello world`;
    await expect.poll(async () => ((await r.client.pubsub('NUMSUB', channel)) as [string, number])[1], { timeout: 30_000 }).toBe(1);
    e.emit({ topic: 'hello world', payload: { my: 'message' } });
    expect(await got).toEqual({ topic: 'hello world', payload: { my: 'message' } });
    await new Promise<void>((done) => e.close(done));
  });
  aedesEmitterContract('redis for Aedes', (opts) => createRedisEmitter(fresh(), opts));

  it("only Aedes's $SYS topics cross nodes: a device topic stays in its node and subscribes no Redis channel", async () => {
    const o = fresh();
    const [a, b] = [createRedisEmitter(o), createRedisEmitter(o)];
    const r = await redisFixture();
    onTestFinished(async () => {
      await new Promise<void>((done) => a.close(done));
      await new Promise<void>((done) => b.close(done));
      await r.cleanup();
    });
    const on = (e: PrefixedEmitter, topic: string, got: string[]) => new Promise<void>((done) => e.on(topic, (m, cb) => (got.push(`${m.topic}`), cb()), done));
    const emit = (e: PrefixedEmitter, topic: string) => new Promise<void>((done, fail) => e.emit({ topic }, (err) => (err ? fail(err) : done())));
    const onA: string[] = [];
    const onB: string[] = [];
    await on(b, '$SYS/+/new/clients', onB);
    await on(b, '/devices/7/command', onB);
    await on(a, '/devices/7/command', onA);
    await on(b, '$SYS/b/new/subscribes', onB);
    // a device topic: the node's own listener has it, the other node's does not
    await emit(a, '/devices/7/command');
    await expect.poll(() => onA, { timeout: 15_000 }).toEqual(['/devices/7/command']);
    // a takeover notice reaches the other node (positive control), after the device topic
    await emit(a, '$SYS/a/new/clients');
    await expect.poll(() => onB, { timeout: 15_000 }).toEqual(['$SYS/a/new/clients']);
    // Redis holds the $SYS pattern of b's subscription, and no channel of a device or of the notices
    const channels = (await r.client.call('PUBSUB', 'CHANNELS', `${channelPrefix(o.prefix)}*`)) as string[];
    expect(channels).toEqual([]);
    const patterns = (await r.client.call('PUBSUB', 'NUMPAT')) as number;
    expect(patterns).toBeGreaterThanOrEqual(1);
    // the subscribe notices stay in the node that emits them
    await emit(a, '$SYS/b/new/subscribes');
    await emit(b, '$SYS/b/new/subscribes');
    await expect.poll(() => onB.length, { timeout: 15_000 }).toBe(2);
    expect(onB).toEqual(['$SYS/a/new/clients', '$SYS/b/new/subscribes']);
  });
  aedesPersistenceContract('redis', {
    buildEmitter: () => createRedisEmitter(fresh()),
    persistence: () => {
      const p = createRedisPersistence(fresh());
      // the suite destroys the persistence only; its emitter's connections go with it
      const destroy = p.destroy.bind(p);
      p.destroy = async () => {
        const mq = (p as unknown as { broker?: { mq?: PrefixedEmitter } }).broker?.mq;
        await destroy();
        await new Promise<void>((r) => (mq ? mq.close(r) : r()));
      };
      return p;
    },
  });
});
