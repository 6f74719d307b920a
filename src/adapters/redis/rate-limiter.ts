// Redis token bucket shared by every api node (rate-limiter-flexible). If Redis is unreachable,
// an in-memory limiter with the same settings takes over (insurance) rather than failing requests.
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';

export function createRedisRateLimiter(opts: { client: RedisClient; keys: RedisKeys; perSecond: number; burst: number }): RateLimiter {
  const extra = Math.max(0, opts.burst - opts.perSecond);
  const steady = new RateLimiterRedis({
    storeClient: opts.client,
    useRedisPackage: true,
    keyPrefix: opts.keys.rateLimit,
    points: opts.perSecond,
    duration: 1,
    insuranceLimiter: new RateLimiterMemory({ points: opts.perSecond, duration: 1 }),
  });
  const burst = new RateLimiterRedis({
    storeClient: opts.client,
    useRedisPackage: true,
    keyPrefix: opts.keys.rateLimitBurst,
    points: extra,
    duration: 10,
    insuranceLimiter: new RateLimiterMemory({ points: extra, duration: 10 }),
  });
  const limiter = new BurstyRateLimiter(steady, burst);
  return {
    async consume(key, points = 1) {
      try {
        await limiter.consume(key, points);
        return { allowed: true, retryAfterMs: 0 };
      } catch (e) {
        if (e instanceof RateLimiterRes) return { allowed: false, retryAfterMs: e.msBeforeNext };
        throw e;
      }
    },
  };
}
