// Redis Presence with node heartbeats. Each node records its connections twice: in the device's
// hash (connection → node) and in its own set, so the connections of a node that dies can be
// found and removed. Every node heartbeats into a sorted set and reaps nodes silent for longer
// than nodeTimeoutMs; ZREM decides which reaper handles a dead node, so it is handled once.
// Bound: a dead node's devices are offline within nodeTimeoutMs + heartbeatMs.
import { randomUUID } from 'node:crypto';
import type { Presence } from '../../ports/presence.js';
import type { RedisClient } from './client.js';
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

  const heartbeat = () => client.zAdd(keys.nodes, { score: Date.now(), value: nodeId });

  /** removes the connections of nodes that stopped heartbeating; returns devices left with none */
  const reap = async (): Promise<number[]> => {
    const dead = await client.zRangeByScore(keys.nodes, 0, Date.now() - opts.nodeTimeoutMs);
    const orphaned: number[] = [];
    for (const node of dead) {
      if (node === nodeId) continue;
      if ((await client.zRem(keys.nodes, node)) !== 1) continue; // another node reaps it
      const entries = await client.sMembers(keys.nodeConnections(node));
      for (const entry of entries) {
        const [dev, conn] = entry.split('|');
        const deviceId = Number(dev);
        const [, left] = (await client.multi().hDel(keys.deviceConnections(deviceId), conn).hLen(keys.deviceConnections(deviceId)).exec()) as unknown as [number, number];
        if (left === 0 && !orphaned.includes(deviceId)) orphaned.push(deviceId);
      }
      await client.del(keys.nodeConnections(node));
    }
    if (orphaned.length && orphanHandler) await orphanHandler(orphaned);
    return orphaned;
  };

  await heartbeat();
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
      const r = (await client
        .multi()
        .hSet(keys.deviceConnections(deviceId), connectionId, nodeId)
        .sAdd(keys.nodeConnections(nodeId), `${deviceId}|${connectionId}`)
        .hLen(keys.deviceConnections(deviceId))
        .exec()) as unknown as [number, number, number];
      return r[0] === 1 && r[2] === 1;
    },
    async disconnected(deviceId, connectionId) {
      const r = (await client
        .multi()
        .hDel(keys.deviceConnections(deviceId), connectionId)
        .sRem(keys.nodeConnections(nodeId), `${deviceId}|${connectionId}`)
        .hLen(keys.deviceConnections(deviceId))
        .exec()) as unknown as [number, number, number];
      return r[0] === 1 && r[2] === 0;
    },
    async count(deviceId) {
      return client.hLen(keys.deviceConnections(deviceId));
    },
    onOrphaned(handler) {
      orphanHandler = handler;
    },
    async close() {
      clearInterval(timer);
      // a clean shutdown: this node's connections were closed by the broker; forget the node
      await client.zRem(keys.nodes, nodeId).catch(() => undefined);
    },
  };
}
