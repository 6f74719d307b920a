// Redis token bucket shared by every api node (rate-limiter-flexible). If Redis is unreachable,
// an in-memory limiter with the same settings takes over (insurance) rather than failing requests.
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { asRateLimiter } from '../local/rate-limiter.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { RedisClient } from './client.js';
import type { RedisKeys } from './keys.js';
import { createRedisFailureCounter } from './failure-counter.js';

export function createRedisRateLimiter(opts: {
  client: RedisClient;
  keys: RedisKeys;
  perSecond: number;
  burst: number;
  onError?: (err: Error) => void;
}): RateLimiter {
  const extra = Math.max(0, opts.burst - opts.perSecond);
  const steady = new RateLimiterRedis({
    storeClient: opts.client,
    keyPrefix: opts.keys.rateLimit,
    points: opts.perSecond,
    duration: 1,
    insuranceLimiter: new RateLimiterMemory({ points: opts.perSecond, duration: 1 }),
  });
  const burst = new RateLimiterRedis({
    storeClient: opts.client,
    keyPrefix: opts.keys.rateLimitBurst,
    points: extra,
    duration: 10,
    insuranceLimiter: new RateLimiterMemory({ points: extra, duration: 10 }),
  });
  return asRateLimiter(new BurstyRateLimiter(steady, burst), createRedisFailureCounter(opts));
}
