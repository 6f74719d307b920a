// MqttSessions on Redis (cluster mode): every broker sees every persistent session, wherever it
// connected. One hash per device (client id → `c:<connection token>` or `o:<offline since ms>`)
// and one sorted set of the offline ones by time, for the expiry sweep.
import type { MqttSessions } from '../../ports/mqtt-sessions.js';
import { redisScript, type RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';

// only the connection that took the session may mark it offline (a takeover, even on another
// node, must not be undone by the old connection's late close)
const DISCONNECTED = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
end
return 0`;

const REMOVE = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 0`;

const member = (deviceId: number, clientId: string) => `${deviceId}|${clientId}`;

export function createRedisMqttSessions(opts: { client: RedisClient; keys: RedisKeys }): MqttSessions {
  const { client, keys } = opts;
  const removeScript = redisScript(client, 'hearthMqttSessionRemove', 2, REMOVE);
  return {
    async connected(deviceId, clientId, token) {
      const key = keys.mqttSessions(deviceId);
      const replies = await client.multi().hset(key, clientId, `c:${token}`).zrem(keys.mqttSessionsOffline, member(deviceId, clientId)).hgetall(key).exec();
      // ioredis: one [error, reply] per command
      const failed = replies?.find(([err]) => err);
      if (!replies || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
      const all = replies[2][1] as Record<string, string>;
      return Object.entries(all).map(([id, v]) => ({ clientId: id, offlineSince: v.startsWith('o:') ? Number(v.slice(2)) : null }));
    },
    async disconnected(deviceId, clientId, token, at) {
      await client.eval(
        DISCONNECTED,
        2,
        keys.mqttSessions(deviceId),
        keys.mqttSessionsOffline,
        clientId,
        `c:${token}`,
        `o:${at}`,
        String(at),
        member(deviceId, clientId),
      );
    },
    async remove(deviceId, clientId) {
      // every clean-session connect: one command (a MULTI of two was four)
      await removeScript(keys.mqttSessions(deviceId), keys.mqttSessionsOffline, clientId, member(deviceId, clientId));
    },
    async expired(before, limit) {
      const ms = await client.zrangebyscore(keys.mqttSessionsOffline, '-inf', `(${before}`, 'LIMIT', 0, limit);
      return ms.map((m) => {
        const bar = m.indexOf('|');
        return { deviceId: Number(m.slice(0, bar)), clientId: m.slice(bar + 1) };
      });
    },
  };
}
