// In-memory rate limit per key: a steady rate plus a burst allowance. The same decisions as
// rate-limiter-flexible's BurstyRateLimiter over two RateLimiterMemory limiters (what the Redis
// adapter runs, and what this adapter ran before): a window of 1 s allowing `perSecond` points,
// and once that is spent a 10 s window allowing the `burst - perSecond` points above it. Done
// synchronously on plain numbers: rate-limiter-flexible's memory limiter builds Dates, a promise
// chain and a timer per window, and every API request pays for it (`npm run bench -- api`).
import { BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';
import type { FailureCounter, RateDecision, RateLimiter } from '../../ports/rate-limiter.js';
import { createMemoryFailureCounter } from './failure-counter.js';

const STEADY_MS = 1000;
const BURST_MS = 10_000;

/** the two windows of one key: points counted and when each window ends (ms since the epoch) */
interface Windows {
  steady: number;
  steadyEnds: number;
  burst: number;
  burstEnds: number;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterMs: 0 });
const ALLOWED_PROMISE: Promise<RateDecision> = Promise.resolve(ALLOWED);

export function createMemoryRateLimiter(opts: { perSecond: number; burst: number; now?: () => number; failures?: FailureCounter }): RateLimiter {
  const steadyPoints = opts.perSecond;
  const burstPoints = Math.max(0, opts.burst - opts.perSecond);
  const now = opts.now ?? Date.now;
  const byKey = new Map<string, Windows>();
  // ended windows are dropped in one sweep at most every burst window (a key idle for longer
  // than both windows has nothing left to remember), so memory follows the keys seen lately
  let sweepAt = 0;
  const sweep = (t: number) => {
    for (const [key, w] of byKey) if (w.steadyEnds <= t && w.burstEnds <= t) byKey.delete(key);
    sweepAt = t + BURST_MS;
  };

  const consumeNow = (key: string, points = 1): RateDecision => {
    const t = now();
    if (t >= sweepAt) sweep(t);
    let w = byKey.get(key);
    if (!w) byKey.set(key, (w = { steady: 0, steadyEnds: 0, burst: 0, burstEnds: 0 }));
    // a window that has ended starts again with this request
    if (w.steadyEnds <= t) {
      w.steady = 0;
      w.steadyEnds = t + STEADY_MS;
    }
    w.steady += points;
    if (w.steady <= steadyPoints) return ALLOWED;
    // past the steady rate: the burst allowance pays (and counts even what it refuses, as the
    // steady window does)
    if (w.burstEnds <= t) {
      w.burst = 0;
      w.burstEnds = t + BURST_MS;
    }
    w.burst += points;
    if (w.burst <= burstPoints) return ALLOWED;
    return { allowed: false, retryAfterMs: Math.min(w.steadyEnds - t, w.burstEnds - t) };
  };
  return {
    consumeNow,
    failures: opts.failures ?? createMemoryFailureCounter({ now }),
    consume(key, points = 1) {
      const d = consumeNow(key, points);
      return d === ALLOWED ? ALLOWED_PROMISE : Promise.resolve(d);
    },
  };
}

/** The port over a rate-limiter-flexible limiter (Redis): a refusal is a decision, not an error. */
export function asRateLimiter(limiter: BurstyRateLimiter, failures: FailureCounter = createMemoryFailureCounter()): RateLimiter {
  return {
    failures,
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
