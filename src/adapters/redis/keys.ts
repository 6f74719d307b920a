// Every Redis key and channel Hearth uses, under one prefix (config `redisPrefix`; tests use a
// prefix of their own so runs sharing one Redis never touch each other's keys).
export function redisKeys(prefix: string) {
  return {
    /** pub/sub channel of one bus topic */
    busChannel: (topic: string) => `${prefix}bus:${topic}`,
    /** hash: connection id → node id, of one device's live connections */
    deviceConnections: (deviceId: number) => `${prefix}presence:device:${deviceId}`,
    /** set of `deviceId|connectionId` held by one node */
    nodeConnections: (nodeId: string) => `${prefix}presence:node:${nodeId}`,
    /** sorted set: node id → time of its last heartbeat (ms) */
    nodes: `${prefix}presence:nodes`,
    /** hash: client id → `c:<connection>` or `o:<offline since ms>`, one device's persistent MQTT sessions */
    mqttSessions: (deviceId: number) => `${prefix}mqtt-sessions:device:${deviceId}`,
    /** sorted set: `deviceId|clientId` → offline since (ms), for the session expiry sweep */
    mqttSessionsOffline: `${prefix}mqtt-sessions:offline`,
    /** rate limiter buckets */
    rateLimit: `${prefix}ratelimit`,
    rateLimitBurst: `${prefix}ratelimit-burst`,
    /** hash {n, until}: failed attempts of one login account, client IP or credential */
    authFailures: (key: string) => `${prefix}authfail:${key}`,
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
