// Redis clients (ioredis, the client Aedes's mqemitter-redis and aedes-persistence-redis use too)
// that survive a Redis restart: they reconnect with a capped backoff, queue commands while
// offline, and report errors to the logger instead of crashing the process.
import { Redis } from 'ioredis';

export type RedisClient = Redis;

export interface RedisOptions {
  url: string;
  /** called on connection errors (a restart shows up here); never throws */
  onError?: (err: Error) => void;
  /**
   * false: commands fail at once while disconnected instead of waiting for the reconnect (the
   * rate limiter then falls back to its in-memory insurance instead of holding requests)
   */
  offlineQueue?: boolean;
}

// attempts at start-up before Redis is reported unreachable
const START_RETRIES = 3;

export async function connectRedis(opts: RedisOptions): Promise<RedisClient> {
  // a Redis that was never reached is a configuration problem, reported at start-up; once
  // connected, the client keeps reconnecting for as long as it takes
  let connected = false;
  let lastError: Error | undefined;
  const client = new Redis(opts.url, {
    connectTimeout: 5000,
    enableOfflineQueue: opts.offlineQueue !== false,
    // queued commands wait for the reconnect however long it takes (not ioredis's 20 retries)
    maxRetriesPerRequest: null,
    // 50 ms, 100 ms, ... capped at 2 s: a restarted Redis is picked up within about 2 s
    retryStrategy: (times: number) => (!connected && times > START_RETRIES ? null : Math.min(50 * 2 ** (times - 1), 2000)),
  });
  client.on('error', (err: Error) => {
    lastError = err;
    opts.onError?.(err);
  });
  await new Promise<void>((resolve, reject) => {
    const ready = () => {
      client.off('end', end);
      resolve();
    };
    const end = () => {
      client.off('ready', ready);
      reject(new Error(`cannot connect: ${lastError?.message ?? 'connection closed'}`));
    };
    client.once('ready', ready);
    client.once('end', end);
  });
  connected = true;
  return client;
}

/**
 * A Lua script as one command: EVALSHA, and EVAL once when Redis does not know the script (a
 * restart emptied its cache), as ioredis's defineCommand does. For the steps of every connect
 * and disconnect (presence, MQTT sessions): a MULTI of three commands is five to encode, send,
 * parse and answer, on both sides (issue #25).
 */
export function redisScript(client: RedisClient, name: string, numberOfKeys: number, lua: string): (...args: (string | number)[]) => Promise<unknown> {
  const commands = client as unknown as Record<string, ((...args: (string | number)[]) => Promise<unknown>) | undefined>;
  if (!commands[name]) client.defineCommand(name, { numberOfKeys, lua });
  const run = commands[name]!;
  return (...args) => run.apply(client, args);
}

/** a second connection with the same settings (a subscriber), ready */
export async function duplicateRedis(client: RedisClient, onError?: (err: Error) => void): Promise<RedisClient> {
  const dup = client.duplicate();
  dup.on('error', (err: Error) => onError?.(err));
  if (dup.status !== 'ready')
    await new Promise<void>((resolve, reject) => {
      dup.once('ready', resolve);
      dup.once('end', () => reject(new Error('cannot connect')));
    });
  return dup;
}

/** QUIT, or a disconnect when the connection is already down */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}

/** deletes the keys under a prefix (tests, benchmarks: never FLUSHALL a shared server) */
export async function deleteKeysByPrefix(client: RedisClient, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await client.del(...keys);
  } while (cursor !== '0');
}
