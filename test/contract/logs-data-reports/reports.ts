// Contract: scheduled reports, the tick lease, the run queue with its leases, the report data
// queries, and retention.
import { describe, expect, it } from 'vitest';
import type { ReportRow, Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, newProject, unique, type MakeStore } from '../store/fixtures.js';

export const reportRow = (over: Partial<ReportRow> = {}): ReportRow => ({
  id: unique('rep'),
  projectId: 1,
  name: 'r',
  description: null,
  kind: 'events',
  filter: { eventTypes: ['a'] },
  window: '24h',
  format: 'csv',
  schedule: { cron: '0 6 * * *', timezone: 'Europe/Paris' },
  destination: { type: 'webhook', url: 'http://h/' },
  keySealed: 'sealed',
  enabled: true,
  creationTime: at(0),
  modificationTime: at(0),
  lastRunTime: null,
  nextRunTime: at(100),
  leaseOwner: null,
  ...over,
});

const run = (store: Store, reportId: string, seconds: number) =>
  store.reportRuns.create({ id: unique('run'), reportId, projectId: 1, trigger: 'manual', dueTime: at(seconds), creationTime: at(seconds) });

export function reportsContract(make: MakeStore): void {
  describe('reports and runs', () => {
    it('stores a report as given, lists oldest first, updates, deletes', async () => {
      const store = await freshStore(make);
      const r = reportRow();
      await store.reports.create(r);
      await store.reports.create(
        reportRow({ creationTime: at(1), enabled: false, nextRunTime: null, filter: null, window: null, destination: { type: 'store' }, keySealed: null }),
      );
      expect(await store.reports.get(r.id)).toEqual(r);
      const page = await store.reports.list(1, all);
      expect(page.total).toBe(2);
      expect(page.items[0].id).toBe(r.id);
      expect(await store.reports.update(r.id, { name: 'n', enabled: false, nextRunTime: null, filter: null, modificationTime: at(5) })).toBe(true);
      expect(await store.reports.get(r.id)).toMatchObject({ name: 'n', enabled: false, nextRunTime: null, filter: null, schedule: r.schedule });
      expect(await store.reports.delete(r.id)).toBe(true);
      expect(await store.reports.get(r.id)).toBeUndefined();
    });

    it('the tick lease: due reports, and exactly one claimTick wins', async () => {
      const store = await freshStore(make);
      const r = reportRow({ nextRunTime: at(10) });
      await store.reports.create(r);
      await store.reports.create(reportRow({ nextRunTime: at(20) }));
      await store.reports.create(reportRow({ nextRunTime: at(5), enabled: false }));
      expect((await store.reports.due(at(15), 10)).map((x) => x.id)).toEqual([r.id]);
      const wins = await Promise.all(['a', 'b', 'c'].map((o) => store.reports.claimTick(r.id, at(10), at(70), o)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store.reports.get(r.id)).toMatchObject({ nextRunTime: at(70), lastRunTime: at(10), leaseOwner: ['a', 'b', 'c'][wins.indexOf(true)] });
      expect(await store.reports.claimTick(r.id, at(10), at(80), 'late')).toBe(false);
    });

    it('the run queue: claimed once, progress and finish only under the lease, taken over after it ends', async () => {
      const store = await freshStore(make);
      const q = await run(store, 'rep-x', 1);
      expect(q).toMatchObject({ status: 'queued', rows: null, startTime: null });
      const claims = await Promise.all([store.reportRuns.claim('w1', at(2), at(62), 5), store.reportRuns.claim('w2', at(2), at(62), 5)]);
      expect(claims.flat()).toHaveLength(1);
      const owner = claims[0].length ? 'w1' : 'w2';
      const other = owner === 'w1' ? 'w2' : 'w1';
      expect(claims.flat()[0]).toMatchObject({ status: 'running', claimedBy: owner, startTime: at(2), rows: 0 });
      expect(await store.reportRuns.progress(q.id, other, 5, at(90))).toBe(false);
      expect(await store.reportRuns.progress(q.id, owner, 5, at(90))).toBe(true);
      expect((await store.reportRuns.get(q.id))?.rows).toBe(5);
      expect(await store.reportRuns.claim(other, at(80), at(140), 5)).toEqual([]);
      const taken = await store.reportRuns.claim(other, at(91), at(151), 5);
      expect(taken).toMatchObject([{ id: q.id, claimedBy: other, startTime: at(2) }]);
      const outcome = { status: 'success' as const, endTime: at(95), rows: 9, error: null, outputKey: 'k', outputBytes: 123 };
      expect(await store.reportRuns.finish(q.id, owner, outcome)).toBe(false);
      expect(await store.reportRuns.finish(q.id, other, outcome)).toBe(true);
      expect(await store.reportRuns.get(q.id)).toMatchObject({ ...outcome, leaseUntil: null });
    });

    it("lists runs newest first; prunes finished runs in batches; deletes a report's runs", async () => {
      const store = await freshStore(make);
      const a = await run(store, 'rep-y', 1);
      const b = await run(store, 'rep-y', 2);
      await run(store, 'rep-z', 3);
      expect((await store.reportRuns.list('rep-y', all)).items.map((r) => r.id)).toEqual([b.id, a.id]);
      await store.reportRuns.claim('w', at(4), at(64), 10);
      await store.reportRuns.finish(a.id, 'w', { status: 'success', endTime: at(5), rows: 1, error: null, outputKey: 'out-a', outputBytes: 1 });
      await store.reportRuns.finish(b.id, 'w', { status: 'failure', endTime: at(5), rows: 0, error: 'x', outputKey: null, outputBytes: null });
      expect(await store.reportRuns.prune(at(10), 1)).toEqual({ removed: 1, outputKeys: ['out-a'] });
      expect(await store.reportRuns.prune(at(10), 10)).toEqual({ removed: 1, outputKeys: [] });
      // the running one is not finished: kept
      expect(await store.reportRuns.prune(at(10), 10)).toEqual({ removed: 0, outputKeys: [] });
      expect(await store.reportRuns.deleteForReport('rep-z')).toEqual([]);
      expect((await store.reportRuns.list('rep-z', all)).total).toBe(0);
    });
  });

  describe('reportData and retention', () => {
    it('devices by id after a cursor, with filters', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await store.devices.create(deviceInput(p.id, { deviceClass: i % 2 ? 'odd' : 'even' }))).id);
      expect((await store.reportData.devices({ projectId: p.id }, 0, 2)).map((d) => d.id)).toEqual(ids.slice(0, 2));
      expect((await store.reportData.devices({ projectId: p.id }, ids[1], 10)).map((d) => d.id)).toEqual(ids.slice(2));
      expect((await store.reportData.devices({ projectId: p.id, deviceClass: 'odd' }, 0, 10)).map((d) => d.id)).toEqual([ids[1], ids[3]]);
      expect((await store.reportData.devices({ projectId: p.id }, 0, 1))[0].isConnected).toBe(false);
    });

    it('events oldest first in a window, after a (time, id) cursor; last connectivity per device', async () => {
      const store = await freshStore(make);
      const ev = (id: string, s: number, eventType = 'a', deviceId?: number) =>
        store.events.insert({
          id,
          projectId: 1,
          event: { eventType, eventData: { id }, timestamp: at(s), ...(deviceId ? { originDeviceId: deviceId, originDeviceClass: 'c' } : {}) },
        });
      await ev('e1', 1);
      await ev('e3', 2);
      await ev('e2', 2);
      await ev('e4', 3, 'b');
      await ev('e5', 9);
      const f = { projectId: 1, since: at(1), until: at(9) };
      expect((await store.reportData.events(f, null, 10)).map((r) => r.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
      expect((await store.reportData.events(f, { time: at(2), id: 'e2' }, 10)).map((r) => r.id)).toEqual(['e3', 'e4']);
      expect((await store.reportData.events({ ...f, eventTypes: ['b'] }, null, 10)).map((r) => r.event.eventData)).toEqual([{ id: 'e4' }]);
      await ev('c1', 1, '_deviceConnected_', 7);
      await ev('c2', 2, '_deviceDisconnected_', 7);
      await ev('c3', 4, '_deviceConnected_', 7);
      await ev('c4', 2, '_deviceConnected_', 8);
      expect((await store.reportData.lastConnectivity(1, at(3))).sort((x, y) => x.deviceId - y.deviceId)).toEqual([
        { deviceId: 7, lastConnect: at(1), lastDisconnect: at(2) },
        { deviceId: 8, lastConnect: at(2), lastDisconnect: null },
      ]);
    });

    it('retention prunes each history oldest first, a batch at a time', async () => {
      const store = await freshStore(make);
      await store.accessLogs.insertMany(
        [1, 2, 3].map((s) => ({ projectId: 1, clientIp: 'x', latency: 1, method: 'GET', path: '/', statusCode: 200, timestamp: at(s) })),
      );
      for (const s of [1, 2, 3]) await store.logs.insert({ projectId: 1, caller: null, level: 1, source: 'api', text: 't', timestamp: at(s) });
      for (const s of [1, 2, 3]) await store.events.insert({ id: `ev${s}`, projectId: 1, event: { eventType: 'a', eventData: {}, timestamp: at(s) } });
      for (const h of ['accessLogs', 'generalLogs', 'events'] as const) {
        expect(await store.retention.prune(h, at(3), 1)).toBe(1);
        expect(await store.retention.prune(h, at(3), 5)).toBe(1);
        expect(await store.retention.prune(h, at(3), 5)).toBe(0);
      }
      expect((await store.events.list({ projectId: 1 }, all)).items.map((e) => e.id)).toEqual(['ev3']);
    });
  });
}
