// The Queue contract, the worker's side: claiming due rows under a lease, the lease as a fence for
// outcomes, giving rows back, and concurrent claimers never sharing a row.
import { describe, expect, it } from 'vitest';
import { at, claim, delivery, fresh, T0, type MakeStore } from './fixtures.js';

export function leaseContract(make: MakeStore): void {
  describe('leases', () => {
    it('claims only due rows, oldest first, up to the limit, and leases them', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([
        delivery('late', { creationTime: at(100) }),
        delivery('b', { creationTime: at(2) }),
        delivery('a', { creationTime: at(1) }),
        delivery('c', { creationTime: at(3) }),
      ]);
      const got = await claim(s, 'w1', 10, 2);
      expect(got.map((d) => d.id)).toEqual(['a', 'b']);
      expect(got[0]).toMatchObject({ status: 'delivering', claimedBy: 'w1', nextAttemptTime: at(70) });
      expect((await claim(s, 'w2', 10)).map((d) => d.id)).toEqual(['c']);
      expect(await claim(s, 'w3', 10)).toEqual([]);
      // the lease runs out: another worker takes the rows again (at least once)
      expect((await claim(s, 'w3', 71)).map((d) => d.id).sort()).toEqual(['a', 'b', 'c']);
    });

    it('leaves lanes out of a claim when asked', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('a'), delivery('b', { moduleId: 'm2' }), delivery('c', { kind: 'command' })]);
      expect((await claim(s, 'w', 1, 10, ['1/m1/event', '1/m2/event'])).map((d) => d.id)).toEqual(['c']);
    });

    it('records an outcome only while the lease is held', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('a')]);
      await claim(s, 'w1', 1);
      const attempt = { time: at(1), statusCode: 500, latencyMs: 3, response: 'no' };
      const retry = { status: 'pending' as const, attempts: [attempt], roundAttempts: 1, nextAttemptTime: at(30), updateTime: at(1) };
      expect(await s.deliveries.complete('a', 'w2', retry)).toBe(false);
      expect(await s.deliveries.complete('a', 'w1', retry)).toBe(true);
      expect(await s.deliveries.complete('a', 'w1', retry)).toBe(false); // no longer delivering
      expect(await s.deliveries.get(1, 'm1', 'a')).toMatchObject({
        status: 'pending',
        attempts: [attempt],
        roundAttempts: 1,
        nextAttemptTime: at(30),
        claimedBy: null,
      });
      expect(await claim(s, 'w1', 29)).toEqual([]);
      expect((await claim(s, 'w1', 30)).map((d) => d.id)).toEqual(['a']);
      const done = {
        status: 'success' as const,
        attempts: [attempt, { ...attempt, statusCode: 200 }],
        roundAttempts: 2,
        nextAttemptTime: null,
        updateTime: at(30),
      };
      expect(await s.deliveries.complete('a', 'w1', done)).toBe(true);
      expect(await s.deliveries.get(1, 'm1', 'a')).toMatchObject({ status: 'success', nextAttemptTime: null });
      expect(await claim(s, 'w1', 10_000)).toEqual([]);
    });

    it('records many outcomes in one call, only for rows whose lease is held', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('a'), delivery('b'), delivery('c'), delivery('d')]);
      await claim(s, 'w1', 1, 3);
      await claim(s, 'w2', 1);
      const attempt = { time: at(1), statusCode: 503, latencyMs: 2.5, response: 'é ✓' };
      const kept = await s.deliveries.completeMany('w1', [
        { id: 'a', outcome: { status: 'success', attempts: [attempt], roundAttempts: 1, nextAttemptTime: null, updateTime: at(2) } },
        { id: 'b', outcome: { status: 'pending', attempts: [attempt], roundAttempts: 1, nextAttemptTime: at(40), updateTime: at(2) } },
        { id: 'd', outcome: { status: 'failed', attempts: [attempt], roundAttempts: 1, nextAttemptTime: null, updateTime: at(2) } },
      ]);
      expect([...kept].sort()).toEqual(['a', 'b']);
      expect(await s.deliveries.get(1, 'm1', 'a')).toMatchObject({
        status: 'success',
        nextAttemptTime: null,
        claimedBy: null,
        attempts: [attempt],
        roundAttempts: 1,
        updateTime: at(2),
      });
      expect(await s.deliveries.get(1, 'm1', 'b')).toMatchObject({ status: 'pending', nextAttemptTime: at(40), claimedBy: null });
      expect(await s.deliveries.get(1, 'm1', 'd')).toMatchObject({ status: 'delivering', claimedBy: 'w2' });
      expect(await s.deliveries.completeMany('w1', [])).toEqual(new Set());
      const many = Array.from({ length: 450 }, (_, i) => delivery(`m${i}`, { creationTime: at(2) }));
      await s.deliveries.insertMany(many);
      await claim(s, 'w3', 3, 1000);
      const all = await s.deliveries.completeMany(
        'w3',
        many.map((d) => ({ id: d.id, outcome: { status: 'success' as const, attempts: [], roundAttempts: 1, nextAttemptTime: null, updateTime: at(3) } })),
      );
      expect(all.size).toBe(450);
    });

    it('gives rows back: release (one worker), releaseAll (embedded start)', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('a'), delivery('b'), delivery('c')]);
      await claim(s, 'w1', 1, 2);
      await claim(s, 'w2', 1);
      await s.deliveries.release(['a', 'b', 'c'], 'w1', at(2));
      expect((await s.deliveries.get(1, 'm1', 'c'))?.status).toBe('delivering'); // w2's, untouched
      expect((await claim(s, 'w3', 2)).map((d) => d.id)).toEqual(['a', 'b']);
      expect(await s.deliveries.releaseAll(at(3))).toBe(3);
      expect((await claim(s, 'w4', 3)).map((d) => d.id)).toEqual(['a', 'b', 'c']);
    });

    it('inserts rows already claimed by a worker (hand-off): leased, fenced and released like claimed ones', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('h1'), delivery('h2')], { workerId: 'w1', leaseUntil: at(60) });
      await s.deliveries.insertMany([delivery('p1')]);
      expect(await s.deliveries.get(1, 'm1', 'h1')).toMatchObject({
        status: 'delivering',
        claimedBy: 'w1',
        nextAttemptTime: at(60),
        attempts: [],
        roundAttempts: 0,
      });
      expect(await s.deliveries.stats()).toEqual({ pending: 1, delivering: 2, oldestPendingTime: T0 });
      // nobody else claims them while the lease runs
      expect((await claim(s, 'w2', 10)).map((d) => d.id)).toEqual(['p1']);
      const done = {
        status: 'success' as const,
        attempts: [{ time: at(1), statusCode: 200, latencyMs: 1, response: 'ok' }],
        roundAttempts: 1,
        nextAttemptTime: null,
        updateTime: at(1),
      };
      expect(await s.deliveries.complete('h1', 'w2', done)).toBe(false);
      expect([...(await s.deliveries.completeMany('w1', [{ id: 'h1', outcome: done }]))]).toEqual(['h1']);
      await s.deliveries.release(['h2'], 'w1', at(2));
      expect((await claim(s, 'w3', 2)).map((d) => d.id)).toEqual(['h2']);
      // a lease that runs out makes the row claimable again (the worker died)
      await s.deliveries.insertMany([delivery('h3')], { workerId: 'w1', leaseUntil: at(60) });
      expect(await claim(s, 'w4', 59)).toEqual([]);
      expect((await claim(s, 'w4', 60)).map((d) => d.id)).toEqual(['h3']);
    });

    it('never hands one row to two concurrent claimers', async () => {
      const s = await fresh(make);
      const rows = Array.from({ length: 200 }, (_, i) => delivery(`d${String(i).padStart(3, '0')}`, { creationTime: at(i % 7) }));
      await s.deliveries.insertMany(rows);
      const results = await Promise.all(Array.from({ length: 8 }, (_, w) => claim(s, `w${w}`, 100, 40)));
      const ids = results.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(200);
    });
  });
}
