// Fairness between receivers: each webhook's share of the worker grows with successes and
// shrinks on timeouts and 5xx (slow start).
import { describe, expect, it } from 'vitest';
import { INITIAL_CAP, Lanes } from '../../../src/worker/webhook/sender/lanes.js';

describe('lanes', () => {
  it('starts each lane at a small cap and reports it full there', () => {
    const l = new Lanes(16);
    for (let i = 0; i < INITIAL_CAP; i++) expect(l.tryAcquire('a')).toBe(true);
    expect(l.tryAcquire('a')).toBe(false);
    expect(l.full()).toEqual(['a']);
    expect(l.tryAcquire('b')).toBe(true);
  });

  it('grows by one per success up to the concurrency, halves on a slow answer', () => {
    const l = new Lanes(4);
    for (let i = 0; i < 10; i++) {
      l.tryAcquire('a');
      l.release('a', 'ok');
    }
    expect(l.capOf('a')).toBe(4);
    l.tryAcquire('a');
    l.release('a', 'slow');
    expect(l.capOf('a')).toBe(2);
    l.tryAcquire('a');
    l.release('a', 'slow');
    l.tryAcquire('a');
    l.release('a', 'slow');
    expect(l.capOf('a')).toBe(1);
    l.tryAcquire('a');
    l.release('a', 'neutral');
    expect(l.capOf('a')).toBe(1);
  });

  it('never exceeds a concurrency of one', () => {
    const l = new Lanes(1);
    expect(l.tryAcquire('a')).toBe(true);
    expect(l.tryAcquire('a')).toBe(false);
  });
});
