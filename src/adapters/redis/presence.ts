// Redis Presence with node heartbeats. Each node records its connections twice: in the device's
// hash (connection → node) and in its own set, so the connections of a node that dies can be
// found and removed. Every node heartbeats into a sorted set and reaps nodes silent for longer
// than nodeTimeoutMs; ZREM decides which reaper handles a dead node, so it is handled once.
// Bound: a dead node's devices are offline within nodeTimeoutMs + heartbeatMs.
// Each node also keeps its own connections in memory: when its heartbeat finds the node missing
// from Redis (Redis restarted empty, or this node was reaped after a long pause), it writes them
// all back and reports their devices (onRestored), so nobody reads a live device as offline for
// longer than one heartbeat, or the reconnect of the client, whichever comes first.
import { randomUUID } from 'node:crypto';
import type { Presence } from '../../ports/presence.js';
import { redisScript, type RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';

export interface RedisPresenceOptions {
  client: RedisClient;
  keys: RedisKeys;
  nodeId?: string;
  heartbeatMs: number;
  nodeTimeoutMs: number;
  onError?: (err: Error) => void;
}

export async function createRedisPresence(opts: RedisPresenceOptions): Promise<Presence & { nodeId: string; reap(): Promise<number[]> }> {
  const { client, keys } = opts;
  const nodeId = opts.nodeId ?? randomUUID();
  let orphanHandler: ((ids: number[]) => Promise<void>) | undefined;
  let restoredHandler: ((ids: number[]) => Promise<void>) | undefined;
  /** this node's live connections: connection id → device id */
  const mine = new Map<string, number>();

  /** writes this node's connections back after Redis lost them; returns their devices */
  const restore = async (): Promise<number[]> => {
    const entries = [...mine];
    const devices = new Set<number>();
    for (let i = 0; i < entries.length; i += 500) {
      const m = client.multi();
      for (const [conn, deviceId] of entries.slice(i, i + 500)) {
        m.hset(keys.deviceConnections(deviceId), conn, nodeId).sadd(keys.nodeConnections(nodeId), `${deviceId}|${conn}`);
        devices.add(deviceId);
      }
      results(await m.exec());
    }
    return [...devices];
  };

  // a connection in the device's hash and the node's set; answers whether it was new, and how many the device has
  const connectedScript = redisScript(client, 'hearthPresenceConnected', 2, CONNECTED);
  const disconnectedScript = redisScript(client, 'hearthPresenceDisconnected', 2, DISCONNECTED);

  let beating: Promise<void> | undefined;
  /** ZADD answers 1 when the node was not there: Redis lost it, or it was reaped meanwhile */
  const heartbeat = () =>
    (beating ??= (async () => {
      try {
        const added = await client.zadd(keys.nodes, Date.now(), nodeId);
        if (added === 1 && mine.size) {
          const ids = await restore();
          if (ids.length && restoredHandler) await restoredHandler(ids);
        }
      } finally {
        beating = undefined;
      }
    })());

  /** removes the connections of nodes that stopped heartbeating; returns devices left with none */
  const reap = async (): Promise<number[]> => {
    const dead = await client.zrangebyscore(keys.nodes, 0, Date.now() - opts.nodeTimeoutMs);
    const orphaned = new Set<number>();
    for (const node of dead) {
      if (node === nodeId) continue;
      if ((await client.zrem(keys.nodes, node)) !== 1) continue; // another node reaps it
      const entries = await client.smembers(keys.nodeConnections(node));
      // 500 connections a transaction (each one's HDEL and HLEN side by side, as one step): a
      // dead broker's 13,000 connections were 13,000 round trips one after another (issue #25)
      for (let i = 0; i < entries.length; i += REAP_BATCH) {
        const batch = entries.slice(i, i + REAP_BATCH).map((entry) => {
          const bar = entry.indexOf('|');
          return { deviceId: Number(entry.slice(0, bar)), conn: entry.slice(bar + 1) };
        });
        const m = client.multi();
        for (const { deviceId, conn } of batch) m.hdel(keys.deviceConnections(deviceId), conn).hlen(keys.deviceConnections(deviceId));
        const left = results(await m.exec());
        batch.forEach(({ deviceId }, j) => {
          if (left[2 * j + 1] === 0) orphaned.add(deviceId);
        });
      }
      await client.del(keys.nodeConnections(node));
    }
    const ids = [...orphaned];
    if (ids.length && orphanHandler) await orphanHandler(ids);
    return ids;
  };

  await heartbeat();
  // a reconnected client (Redis restarted) beats at once instead of at the next tick
  const onReady = () => void heartbeat().catch((err: Error) => opts.onError?.(err));
  client.on('ready', onReady);
  const timer = setInterval(() => {
    heartbeat()
      .then(() => reap())
      .catch((err: Error) => opts.onError?.(err));
  }, opts.heartbeatMs);
  timer.unref();

  return {
    nodeId,
    reap,
    async connected(deviceId, connectionId) {
      mine.set(connectionId, deviceId);
      const [added, left] = (await connectedScript(
        keys.deviceConnections(deviceId),
        keys.nodeConnections(nodeId),
        connectionId,
        nodeId,
        `${deviceId}|${connectionId}`,
      )) as number[];
      return added === 1 && left === 1;
    },
    async disconnected(deviceId, connectionId) {
      const wasMine = mine.delete(connectionId);
      const [removed, left] = (await disconnectedScript(
        keys.deviceConnections(deviceId),
        keys.nodeConnections(nodeId),
        connectionId,
        `${deviceId}|${connectionId}`,
      )) as number[];
      // a connection Redis lost (restarted empty) and not yet written back still ends here
      return (removed === 1 || wasMine) && left === 0;
    },
    async count(deviceId) {
      return client.hlen(keys.deviceConnections(deviceId));
    },
    onOrphaned(handler) {
      orphanHandler = handler;
    },
    onRestored(handler) {
      restoredHandler = handler;
    },
    async close() {
      clearInterval(timer);
      client.off('ready', onReady);
      // a clean shutdown: this node's connections were closed by the broker; forget the node
      await client.zrem(keys.nodes, nodeId).catch(() => undefined);
    },
  };
}

// one command each for what every connect and disconnect writes (a MULTI of three was five)
const CONNECTED = `
local added = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return {added, redis.call('HLEN', KEYS[1])}`;
const DISCONNECTED = `
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
return {removed, redis.call('HLEN', KEYS[1])}`;

/** connections of a dead node removed per transaction when it is reaped */
const REAP_BATCH = 500;

/** a MULTI's replies, in order; the first failed command's error is thrown */
function results(replies: [Error | null, unknown][] | null): number[] {
  if (!replies) throw new Error('transaction aborted');
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value as number;
  });
}
