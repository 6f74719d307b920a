// The process-wide sources Deps carries (src/domain/crypto/): each server builds its own, so two in
// one process (tests, benchmarks) share nothing, and the ids they make still never collide.
import { describe, expect, it } from 'vitest';
import { RandomSource } from '../../../src/domain/crypto/random.js';
import { IdSource } from '../../../src/domain/crypto/ids.js';
import { Sealer } from '../../../src/domain/crypto/sealer.js';

describe('IdSource', () => {
  it('makes event and delivery ids that sort like their time and never repeat, across two sources', () => {
    const a = new IdSource(new RandomSource());
    const b = new IdSource(new RandomSource());
    const t0 = new Date('2026-01-01T00:00:00Z');
    const t1 = new Date('2026-01-01T00:00:01Z');
    const events = [a.event(t0), b.event(t0), a.event(t0), a.event(t1), b.event(t1)];
    const deliveries = [a.delivery(t0), b.delivery(t0), a.delivery(t0), a.delivery(t1)];
    expect(new Set(events).size).toBe(events.length);
    expect(new Set(deliveries).size).toBe(deliveries.length);
    // within one source, later ids sort after earlier ones
    expect(a.event(t0) < a.event(t1)).toBe(true);
    const burst = [a.event(t0), a.event(t0), a.event(t0)];
    expect(burst).toEqual([...burst].sort());
    expect(deliveries.every((d) => d.startsWith('d'))).toBe(true);
  });

  it('writes a timestamp as toISOString does, remembered only for its millisecond', () => {
    const a = new IdSource(new RandomSource());
    for (const ms of [0, 1, 1, 999, 1_000, 1_764_288_000_123, 1_764_288_000_123, 1_764_288_000_124, 5])
      expect(a.timestamp(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => a.timestamp(new Date(NaN))).toThrow(RangeError);
    expect(a.timestamp(new Date(5))).toBe(new Date(5).toISOString());
  });
});

describe('Sealer', () => {
  it('opens what it sealed, with a fresh IV each time, and a sealer of another secret opens nothing of it', () => {
    const random = new RandomSource();
    const one = new Sealer('secret-one-secret-one', random);
    const a = one.seal('wk.plain');
    const b = one.seal('wk.plain');
    expect(a).not.toBe(b);
    expect(one.unseal(a)).toBe('wk.plain');
    expect(one.unseal(b)).toBe('wk.plain');
    // a second server's sealer under the same secret opens it too (a restart, another node)
    expect(new Sealer('secret-one-secret-one', new RandomSource()).unseal(a)).toBe('wk.plain');
    expect(() => new Sealer('secret-two-secret-two', random).unseal(a)).toThrow();
    expect(() => one.unseal('not sealed')).toThrow('not a sealed value');
  });
});

describe('RandomSource', () => {
  it('hands out each byte once: tokens and claim codes keep their formats and do not repeat', () => {
    const r = new RandomSource();
    const tokens = Array.from({ length: 500 }, () => r.token('dk.'));
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const t of tokens) expect(t).toMatch(/^dk\.[A-Za-z0-9_-]{43}$/);
    expect(r.claimCode()).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(r.accountCode()).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(r.bytes(1024)).toHaveLength(1024);
  });
});
