// RateLimiter contract: a steady rate plus a burst, per key.
import { describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';

export type LimiterFactory = (o: { perSecond: number; burst: number }) => Promise<{ limiter: RateLimiter; cleanup(): Promise<void> }>;

export function rateLimiterContract(name: string, make: LimiterFactory): void {
  describe(`RateLimiter contract: ${name}`, () => {
    it('allows the burst, then refuses with the time to wait', async () => {
      const { limiter, cleanup } = await make({ perSecond: 5, burst: 8 });
      try {
        const results = [];
        for (let i = 0; i < 10; i++) results.push(await limiter.consume('k'));
        expect(results.filter((r) => r.allowed)).toHaveLength(8);
        const refused = results.filter((r) => !r.allowed);
        expect(refused).toHaveLength(2);
        for (const r of refused) {
          expect(r.retryAfterMs).toBeGreaterThan(0);
          expect(r.retryAfterMs).toBeLessThanOrEqual(10_000);
        }
      } finally {
        await cleanup();
      }
    });

    it('keeps a bucket per key', async () => {
      const { limiter, cleanup } = await make({ perSecond: 2, burst: 2 });
      try {
        expect((await limiter.consume('a')).allowed).toBe(true);
        expect((await limiter.consume('a')).allowed).toBe(true);
        expect((await limiter.consume('a')).allowed).toBe(false);
        expect((await limiter.consume('b')).allowed).toBe(true);
      } finally {
        await cleanup();
      }
    });

    it('refills after the window', async () => {
      const { limiter, cleanup } = await make({ perSecond: 1, burst: 1 });
      try {
        expect((await limiter.consume('r')).allowed).toBe(true);
        const refused = await limiter.consume('r');
        expect(refused.allowed).toBe(false);
        await new Promise((r) => setTimeout(r, refused.retryAfterMs + 50));
        expect((await limiter.consume('r')).allowed).toBe(true);
      } finally {
        await cleanup();
      }
    });
  });
}
