// The Queue contract, records: modules, delivery rows and the log, redelivery, upkeep, and an event
// committing with its deliveries (outbox) or not at all.
import { describe, expect, it } from 'vitest';
import { at, claim, delivery, fresh, moduleRow, T0, type MakeStore } from './fixtures.js';

export function recordsContract(make: MakeStore): void {
  describe('records', () => {
    it('modules: create once per id, read, list, read many, update, delete', async () => {
      const s = await fresh(make);
      expect(await s.modules.create(moduleRow('a'))).toBe(true);
      expect(await s.modules.create(moduleRow('a'))).toBe(false);
      await s.modules.create(moduleRow('b', { description: 'd', commandWebhook: { url: 'https://x/c', keySealed: 'k' } }));
      await s.modules.create(moduleRow('a', { projectId: 2 }));
      expect(await s.modules.get(1, 'a')).toEqual(moduleRow('a'));
      expect((await s.modules.list(1)).map((m) => m.id)).toEqual(['a', 'b']);
      const many = await s.modules.getMany([
        { projectId: 1, id: 'b' },
        { projectId: 2, id: 'a' },
        { projectId: 3, id: 'a' },
      ]);
      expect(many.map((m) => `${m.projectId}/${m.id}`).sort()).toEqual(['1/b', '2/a']);
      expect(await s.modules.getMany([])).toEqual([]);
      const disabled = { time: at(5), reason: 'gone' };
      expect(await s.modules.update(1, 'a', { eventDisabled: disabled, description: 'x', modificationTime: at(5) })).toBe(true);
      expect(await s.modules.get(1, 'a')).toMatchObject({
        eventDisabled: disabled,
        description: 'x',
        modificationTime: at(5),
        eventWebhook: moduleRow('a').eventWebhook,
      });
      expect(await s.modules.update(1, 'zz', { modificationTime: at(5) })).toBe(false);
      expect(await s.modules.delete(1, 'a')).toBe(true);
      expect(await s.modules.delete(1, 'a')).toBe(false);
      expect(await s.modules.get(2, 'a')).toBeDefined();
    });

    it('inserts pending deliveries due at their creation time, and lists them newest first', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('d1'), delivery('d2', { creationTime: at(1) }), delivery('d3', { creationTime: at(2), moduleId: 'm2' })]);
      const d1 = await s.deliveries.get(1, 'm1', 'd1');
      expect(d1).toMatchObject({ status: 'pending', attempts: [], roundAttempts: 0, nextAttemptTime: T0, payload: '{"id":"d1"}', claimedBy: null });
      expect(await s.deliveries.get(1, 'm2', 'd1')).toBeUndefined();
      const page = await s.deliveries.list({ projectId: 1, moduleId: 'm1' }, { skip: 0, limit: 10 });
      expect(page.total).toBe(2);
      expect(page.items.map((d) => d.id)).toEqual(['d2', 'd1']);
      expect((await s.deliveries.list({ projectId: 1, moduleId: 'm1', since: at(1) }, { skip: 0, limit: 10 })).items.map((d) => d.id)).toEqual(['d2']);
      expect((await s.deliveries.list({ projectId: 1, moduleId: 'm1', status: 'failed' }, { skip: 0, limit: 10 })).total).toBe(0);
    });

    it('redelivers a finished delivery with a fresh round, and leaves one in flight alone', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany([delivery('a'), delivery('b')]);
      await claim(s, 'w', 1);
      const attempt = { time: at(1), statusCode: 400, latencyMs: 1, response: '' };
      await s.deliveries.complete('a', 'w', { status: 'failed', attempts: [attempt], roundAttempts: 1, nextAttemptTime: null, updateTime: at(1) });
      const again = await s.deliveries.redeliver(1, 'm1', 'a', at(5));
      expect(again).toMatchObject({ status: 'pending', roundAttempts: 0, attempts: [attempt], nextAttemptTime: at(5) });
      expect((await s.deliveries.redeliver(1, 'm1', 'b', at(5)))?.status).toBe('delivering');
      expect(await s.deliveries.redeliver(1, 'm1', 'nope', at(5))).toBeUndefined();
      expect(await s.deliveries.redeliver(1, 'm9', 'a', at(5))).toBeUndefined();
    });

    it('counts the queue, prunes finished rows past retention, deletes a module’s rows', async () => {
      const s = await fresh(make);
      expect(await s.deliveries.stats()).toEqual({ pending: 0, delivering: 0, oldestPendingTime: null });
      await s.deliveries.insertMany([
        delivery('a', { creationTime: at(1) }),
        delivery('b', { creationTime: at(2) }),
        delivery('c', { creationTime: at(3), moduleId: 'm2' }),
      ]);
      await claim(s, 'w', 10, 1);
      expect(await s.deliveries.stats()).toEqual({ pending: 2, delivering: 1, oldestPendingTime: at(1) });
      await s.deliveries.complete('a', 'w', { status: 'success', attempts: [], roundAttempts: 1, nextAttemptTime: null, updateTime: at(10) });
      expect(await s.deliveries.stats()).toEqual({ pending: 2, delivering: 0, oldestPendingTime: at(2) });
      expect(await s.deliveries.prune(at(1), 100)).toBe(0);
      expect(await s.deliveries.prune(at(11), 100)).toBe(1); // only the finished one
      expect(await s.deliveries.deleteForModule(1, 'm1')).toBe(1);
      expect((await s.deliveries.stats()).pending).toBe(1);
    });

    it('commits an event with its deliveries, or neither', async () => {
      const s = await fresh(make);
      const event = { eventType: 'tick', eventData: {}, timestamp: T0, homeId: 1 };
      await expect(
        s.transaction(async (tx) => {
          await tx.events.insert({ id: 'ev1', projectId: 1, event });
          await tx.deliveries.insertMany([delivery('x')]);
          throw new Error('crash before commit');
        }),
      ).rejects.toThrow('crash before commit');
      expect((await s.events.list({ projectId: 1 }, { skip: 0, limit: 10 })).total).toBe(0);
      expect(await s.deliveries.get(1, 'm1', 'x')).toBeUndefined();
      await s.transaction(async (tx) => {
        await tx.events.insert({ id: 'ev2', projectId: 1, event });
        await tx.deliveries.insertMany([delivery('y')]);
      });
      expect((await s.events.list({ projectId: 1 }, { skip: 0, limit: 10 })).total).toBe(1);
      expect(await s.deliveries.get(1, 'm1', 'y')).toBeDefined();
    });

    it('inserts a large batch (beyond one statement’s parameters)', async () => {
      const s = await fresh(make);
      await s.deliveries.insertMany(Array.from({ length: 1200 }, (_, i) => delivery(`b${i}`)));
      expect((await s.deliveries.stats()).pending).toBe(1200);
      await s.deliveries.insertMany(
        Array.from({ length: 1200 }, (_, i) => delivery(`c${i}`)),
        { workerId: 'w', leaseUntil: at(60) },
      );
      expect(await s.deliveries.stats()).toMatchObject({ pending: 1200, delivering: 1200 });
      await s.deliveries.insertMany([]);
    });

    it('writes each row of a batch with its own values, pending or leased', async () => {
      const s = await fresh(make);
      // 19 rows pending, then 19 leased (on SQLite two runs of 8 rows a statement, then 3 one by one,
      // deliveries.ts); every field differs from row to row, so a value bound in
      // another row's place (or another column's) shows
      const rows = (prefix: string) =>
        Array.from({ length: 19 }, (_, i) =>
          delivery(`${prefix}${i}`, {
            projectId: 1 + (i % 2),
            moduleId: `m${i % 3}`,
            kind: i % 4 === 0 ? 'command' : 'event',
            eventId: i % 5 === 0 ? null : `ev-${prefix}${i}`,
            eventType: i % 6 === 0 ? null : `type${i}`,
            payload: `{"n":${i},"p":"${prefix}"}`,
            creationTime: at(i),
          }),
        );
      const pending = rows('p');
      const leased = rows('l');
      await s.deliveries.insertMany(pending);
      await s.deliveries.insertMany(leased, { workerId: 'w1', leaseUntil: at(100) });
      for (const d of pending)
        expect(await s.deliveries.get(d.projectId, d.moduleId, d.id)).toEqual({
          ...d,
          status: 'pending',
          attempts: [],
          roundAttempts: 0,
          nextAttemptTime: d.creationTime,
          updateTime: d.creationTime,
          claimedBy: null,
        });
      for (const d of leased)
        expect(await s.deliveries.get(d.projectId, d.moduleId, d.id)).toEqual({
          ...d,
          status: 'delivering',
          attempts: [],
          roundAttempts: 0,
          nextAttemptTime: at(100),
          updateTime: d.creationTime,
          claimedBy: 'w1',
        });
      // each row's lane is its own: leaving out every lane but one claims exactly that lane's rows
      const lanes = new Set(pending.map((d) => `${d.projectId}/${d.moduleId}/${d.kind}`));
      const lane = '2/m1/event';
      const got = await claim(
        s,
        'w2',
        50,
        100,
        [...lanes].filter((l) => l !== lane),
      );
      const want = pending.filter((d) => `${d.projectId}/${d.moduleId}/${d.kind}` === lane).map((d) => d.id);
      expect(want.length).toBeGreaterThan(0);
      expect(got.map((d) => d.id).sort()).toEqual(want.sort());
    });

    it('commits many events with their deliveries in one transaction, or none of them', async () => {
      const s = await fresh(make);
      const events = Array.from({ length: 700 }, (_, i) => ({
        id: `ev${i}`,
        projectId: 1,
        event: { eventType: 'tick', eventData: { i }, timestamp: at(i), homeId: 1, originDeviceId: 5 },
      }));
      await expect(
        s.transaction(async (tx) => {
          await tx.events.insertMany(events);
          await tx.deliveries.insertMany([delivery('x')], { workerId: 'w', leaseUntil: at(60) });
          await tx.events.insertMany([events[0]]); // a duplicate id: the whole transaction fails
        }),
      ).rejects.toThrow();
      expect((await s.events.list({ projectId: 1 }, { skip: 0, limit: 10 })).total).toBe(0);
      expect(await s.deliveries.get(1, 'm1', 'x')).toBeUndefined();
      await s.transaction(async (tx) => {
        await tx.events.insertMany(events);
        await tx.deliveries.insertMany([delivery('x')], { workerId: 'w', leaseUntil: at(60) });
      });
      const page = await s.events.list({ projectId: 1, deviceId: 5 }, { skip: 0, limit: 2 });
      expect(page.total).toBe(700);
      expect(page.items[0]).toEqual(events[699]);
      expect(await s.deliveries.get(1, 'm1', 'x')).toMatchObject({ status: 'delivering', claimedBy: 'w' });
      await s.events.insertMany([]);
    });
  });
}
