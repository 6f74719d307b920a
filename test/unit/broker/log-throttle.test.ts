// The general log gets one line per key per window, and the throttle's memory stays bounded.
import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../../src/domain/log-throttle.js';

describe('LogThrottle', () => {
  it('allows one line per key per window', () => {
    const th = new LogThrottle(1000);
    expect(th.allow('a', 0)).toBe(true);
    expect(th.allow('a', 500)).toBe(false);
    expect(th.allow('b', 500)).toBe(true);
    expect(th.allow('a', 1000)).toBe(true);
  });

  it('forgets keys when full instead of growing', () => {
    const th = new LogThrottle(1000, 100);
    for (let i = 0; i < 10_000; i++) th.allow(`k${i}`, 0);
    expect((th as unknown as { last: Map<string, number> }).last.size).toBeLessThanOrEqual(100);
  });
});
