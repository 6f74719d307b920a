// node-redis clients that survive a Redis restart: they reconnect with a capped backoff, queue
// commands while offline, and report errors to the logger instead of crashing the process.
import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

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

export async function connectRedis(opts: RedisOptions): Promise<RedisClient> {
  // a Redis that was never reached is a configuration problem, reported at start-up; once
  // connected, the client keeps reconnecting for as long as it takes
  let connected = false;
  const client = createClient({
    url: opts.url,
    disableOfflineQueue: opts.offlineQueue === false,
    socket: {
      connectTimeout: 5000,
      // 50 ms, 100 ms, ... capped at 2 s: a restarted Redis is picked up within about 2 s
      reconnectStrategy: (retries: number, cause: Error) =>
        !connected && retries >= 3 ? new Error(`cannot connect: ${cause.message}`) : Math.min(50 * 2 ** retries, 2000),
    },
  });
  client.on('error', (err: Error) => opts.onError?.(err));
  await client.connect();
  connected = true;
  return client;
}
