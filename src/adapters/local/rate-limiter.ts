// In-memory token bucket per key (rate-limiter-flexible's BurstyRateLimiter: a steady rate plus
// a burst allowance).
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiter } from '../../ports/rate-limiter.js';

export function createMemoryRateLimiter(opts: { perSecond: number; burst: number }): RateLimiter {
  const steady = new RateLimiterMemory({ points: opts.perSecond, duration: 1 });
  const burst = new RateLimiterMemory({ keyPrefix: 'burst', points: Math.max(0, opts.burst - opts.perSecond), duration: 10 });
  return asRateLimiter(new BurstyRateLimiter(steady, burst));
}

/** The port over a rate-limiter-flexible limiter (memory or Redis): a refusal is a decision, not an error. */
export function asRateLimiter(limiter: BurstyRateLimiter): RateLimiter {
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
