// RateLimiter contract: a steady rate plus a burst, per key.
import { describe, expect, it } from 'vitest';
import type { FailurePolicy, RateLimiter } from '../../src/ports/rate-limiter.js';

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

    describe('failure counter (docs/concepts.md: throttled logins, claim codes, provisioning tokens)', () => {
      const policy: FailurePolicy = { free: 2, baseMs: 1000, maxMs: 4000, windowMs: 60_000 };

      it('lets the free failures pass, then doubles the wait with each failure up to the cap', async () => {
        const { limiter, cleanup } = await make({ perSecond: 5, burst: 5 });
        try {
          const f = limiter.failures;
          expect(await f.waitOf('acct')).toBe(0);
          expect([await f.fail('acct', policy), await f.fail('acct', policy)]).toEqual([0, 0]);
          expect(await f.waitOf('acct')).toBe(0);
          expect(await f.fail('acct', policy)).toBe(1000);
          const waiting = await f.waitOf('acct');
          expect(waiting).toBeGreaterThan(0);
          expect(waiting).toBeLessThanOrEqual(1000);
          expect([await f.fail('acct', policy), await f.fail('acct', policy), await f.fail('acct', policy)]).toEqual([2000, 4000, 4000]);
          expect(await f.waitOf('acct')).toBeGreaterThan(2000);
        } finally {
          await cleanup();
        }
      });

      it('keeps a count per key, and a success (reset) forgets it', async () => {
        const { limiter, cleanup } = await make({ perSecond: 5, burst: 5 });
        try {
          const f = limiter.failures;
          for (let i = 0; i < 3; i++) await f.fail('a', policy);
          expect(await f.waitOf('a')).toBeGreaterThan(0);
          expect(await f.waitOf('b')).toBe(0);
          expect(await f.fail('b', policy)).toBe(0);
          expect([await f.countOf('a'), await f.countOf('b'), await f.countOf('never')]).toEqual([3, 1, 0]);
          await f.reset('a');
          expect(await f.waitOf('a')).toBe(0);
          expect(await f.countOf('a')).toBe(0);
          // counting starts again from the first free failure
          expect(await f.fail('a', policy)).toBe(0);
        } finally {
          await cleanup();
        }
      });

      it('forgets a count once its window has passed', async () => {
        const { limiter, cleanup } = await make({ perSecond: 5, burst: 5 });
        try {
          const f = limiter.failures;
          const short: FailurePolicy = { free: 0, baseMs: 100, maxMs: 1000, windowMs: 300 };
          // positive control: two failures inside one window count up. On a busy machine the
          // second call may land after the window; then the pair is tried again on a fresh key.
          let key = '';
          for (let attempt = 0; attempt < 20 && !key; attempt++) {
            const k = `w${attempt}`;
            const started = performance.now();
            const first = await f.fail(k, short);
            const second = await f.fail(k, short);
            if (performance.now() - started >= short.windowMs) continue;
            expect([first, second]).toEqual([100, 200]);
            key = k;
          }
          expect(key, 'two failures within one 300 ms window').not.toBe('');
          // now let the window pass
          await new Promise((r) => setTimeout(r, 450));
          expect(await f.waitOf(key)).toBe(0);
          expect(await f.fail(key, short)).toBe(100);
        } finally {
          await cleanup();
        }
      });
    });
  });
}
