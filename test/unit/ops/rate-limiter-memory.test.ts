// The in-memory rate limiter decides synchronously on plain numbers (src/adapters/local/
// rate-limiter.ts). It must decide exactly as rate-limiter-flexible's BurstyRateLimiter over two
// RateLimiterMemory windows (what it replaced, and what the Redis adapter still runs): same
// allowed/refused answers and the same time to wait, request after request, on one clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BurstyRateLimiter, RateLimiterMemory } from 'rate-limiter-flexible';
import { asRateLimiter, createMemoryRateLimiter } from '../../../src/adapters/local/rate-limiter.js';

function reference(o: { perSecond: number; burst: number }) {
  const steady = new RateLimiterMemory({ points: o.perSecond, duration: 1 });
  const burst = new RateLimiterMemory({ keyPrefix: 'burst', points: Math.max(0, o.burst - o.perSecond), duration: 10 });
  return asRateLimiter(new BurstyRateLimiter(steady, burst));
}

/** a small deterministic generator (the sequence must be the same on every run) */
function lcg(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

describe('memory rate limiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const settings of [
    { perSecond: 5, burst: 8 },
    { perSecond: 2, burst: 2 },
    { perSecond: 1, burst: 1 },
    { perSecond: 10, burst: 4 },
    { perSecond: 3, burst: 30 },
  ]) {
    it(`decides like rate-limiter-flexible's bursty memory limiter (${settings.perSecond}/s, burst ${settings.burst})`, async () => {
      const ours = createMemoryRateLimiter(settings);
      const theirs = reference(settings);
      const next = lcg(settings.perSecond * 1000 + settings.burst);
      let refused = 0;
      for (let i = 0; i < 3000; i++) {
        // mostly bursts within a window, now and then a pause past one or both windows
        const r = next(100);
        vi.advanceTimersByTime(r < 70 ? next(40) : r < 90 ? next(400) : r < 97 ? 1000 + next(1500) : 10_000 + next(3000));
        const key = `k${next(3)}`;
        const points = next(10) === 0 ? 2 : 1;
        const want = await theirs.consume(key, points);
        // the promise and the immediate answer alternate: one bucket, the same decisions
        const got = i % 2 ? ours.consumeNow!(key, points) : await ours.consume(key, points);
        expect({ i, ...got }).toEqual({ i, ...want });
        if (!got.allowed) refused++;
      }
      // the sequence exercised both answers
      expect(refused).toBeGreaterThan(10);
      expect(refused).toBeLessThan(2900);
    });
  }

  it('forgets keys whose windows have ended', async () => {
    const limiter = createMemoryRateLimiter({ perSecond: 1, burst: 2 });
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect(await limiter.consume('a')).toEqual({ allowed: false, retryAfterMs: 1000 });
    // after both windows a key starts afresh, and many keys seen once do not pile up answers
    vi.advanceTimersByTime(10_000);
    for (let i = 0; i < 1000; i++) await limiter.consume(`once-${i}`);
    vi.advanceTimersByTime(10_001);
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(false);
  });
});
