// Repeated bad credentials from one address (docs/devices.md#mqtt, broker/limits/auth-backoff.ts): the first is
// answered at once, then each waits twice as long up to the cap; an address that stops failing
// is forgotten; memory is bounded.
import { describe, expect, it } from 'vitest';
import { AuthBackoff } from '../../../broker/limits/auth-backoff.js';

describe('AuthBackoff', () => {
  it('doubles per failure from the base up to the cap, per address', () => {
    const b = new AuthBackoff({ baseMs: 100, maxMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => b.failed('10.0.0.1', 0))).toEqual([0, 100, 200, 400, 800, 1000]);
    expect(b.failed('10.0.0.2', 0)).toBe(0);
    expect(b.failed(undefined, 0)).toBe(0);
  });

  it('forgets an address that stopped failing for forgetMs', () => {
    const b = new AuthBackoff({ baseMs: 100, maxMs: 1000, forgetMs: 5000 });
    b.failed('a', 0);
    b.failed('a', 0);
    expect(b.failed('a', 4000)).toBe(200);
    expect(b.failed('a', 9001)).toBe(0);
  });

  it('remembers at most maxAddresses', () => {
    const b = new AuthBackoff({ baseMs: 1, maxMs: 10, maxAddresses: 100 });
    for (let i = 0; i < 10_000; i++) b.failed(`addr${i}`, i);
    expect(b.size).toBeLessThanOrEqual(100);
    // the newest are the ones kept
    expect(b.failuresOf('addr9999')).toBe(1);
  });
});
