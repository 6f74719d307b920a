// Failed attempts per key in Redis, shared by every api node (docs/concepts.md: logins are throttled per
// account and per client IP across the cluster). One hash per key {n, until}; each call is one
// Lua script, so concurrent failures on several nodes count exactly and the wait is computed from
// Redis's own clock (nodes' clocks may differ). The key expires with its window. While Redis is
// unreachable, an in-memory counter takes over (insurance, as for the token bucket).
import { createMemoryFailureCounter } from '../local/failure-counter.js';
import type { FailureCounter } from '../../ports/rate-limiter.js';
import type { RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// ARGV: free, baseMs, maxMs, windowMs. Answers the wait started (ms, 0 while free).
const FAIL = `${NOW}
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local free, base, max, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local wait = 0
if n > free then
  wait = math.min(max, base * 2 ^ math.min(n - free - 1, 40))
  redis.call('HSET', KEYS[1], 'until', now + wait)
end
redis.call('PEXPIRE', KEYS[1], math.max(window, wait))
return wait`;

const WAIT = `${NOW}
local u = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if u > now then return u - now end
return 0`;

export function createRedisFailureCounter(opts: { client: RedisClient; keys: RedisKeys; onError?: (err: Error) => void }): FailureCounter {
  const insurance = createMemoryFailureCounter();
  const key = (k: string) => opts.keys.authFailures(k);
  const guarded = async <T>(redis: () => Promise<unknown>, local: () => Promise<T>): Promise<T> => {
    try {
      return (await redis()) as T;
    } catch (e) {
      opts.onError?.(e as Error);
      return local();
    }
  };
  return {
    waitOf: (k) =>
      guarded(
        async () => Number(await opts.client.eval(WAIT, 1, key(k))),
        () => insurance.waitOf(k),
      ),
    countOf: (k) =>
      guarded(
        async () => Number((await opts.client.hget(key(k), 'n')) ?? 0),
        () => insurance.countOf(k),
      ),
    fail: (k, p) =>
      guarded(
        async () => Number(await opts.client.eval(FAIL, 1, key(k), p.free, p.baseMs, p.maxMs, p.windowMs)),
        () => insurance.fail(k, p),
      ),
    reset: (k) =>
      guarded(
        async () => void (await opts.client.del(key(k))),
        () => insurance.reset(k),
      ),
  };
}
