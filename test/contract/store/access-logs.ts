// Store contract: HTTP access logs (bulk insert, filters, newest first, large latencies).
import { describe, expect, it } from 'vitest';
import type { AccessLogFilter, AccessLogRow, Store } from '../../../src/ports/store.js';
import { all, at, freshStore, type MakeStore } from './fixtures.js';

const row = (second: number, over: Partial<AccessLogRow> = {}): AccessLogRow => ({
  projectId: 1,
  clientIp: '192.0.2.1',
  latency: 1500,
  method: 'GET',
  path: '/devices',
  statusCode: 200,
  timestamp: at(second),
  ...over,
});

const paths = async (store: Store, f: Partial<AccessLogFilter>) => (await store.accessLogs.list({ projectId: 1, ...f }, all)).items.map((r) => r.path).sort();

export function accessLogsContract(make: MakeStore): void {
  describe('accessLogs', () => {
    it('inserts 500 rows at once and lists them newest first, paged, with the total', async () => {
      const store = await freshStore(make);
      const rows = Array.from({ length: 500 }, (_, i) => row(i, { path: `/r/${i}` }));
      await store.accessLogs.insertMany(rows);
      const first = await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 100 });
      expect(first.total).toBe(500);
      expect(first.items).toHaveLength(100);
      expect(first.items[0]).toEqual(rows[499]);
      expect(first.items[99]).toEqual(rows[400]);
      const last = await store.accessLogs.list({ projectId: 1 }, { skip: 450, limit: 100 });
      expect(last.items.map((r) => r.path)).toEqual(
        rows
          .slice(0, 50)
          .reverse()
          .map((r) => r.path),
      );
    });

    it('keeps the order of a batch that is not a whole number of statement chunks, within one timestamp', async () => {
      const store = await freshStore(make);
      const rows = Array.from({ length: 123 }, (_, i) => row(7, { path: `/same-second/${i}`, latency: i }));
      await store.accessLogs.insertMany(rows);
      const listed = await store.accessLogs.list({ projectId: 1 }, all);
      expect(listed.total).toBe(123);
      expect(listed.items).toEqual([...rows].reverse());
    });

    it('accepts an empty batch', async () => {
      const store = await freshStore(make);
      await store.accessLogs.insertMany([]);
      expect(await store.accessLogs.list({ projectId: 1 }, all)).toEqual({ total: 0, items: [] });
    });

    it('lists only the given project', async () => {
      const store = await freshStore(make);
      await store.accessLogs.insertMany([row(1, { path: '/mine' }), row(2, { projectId: 2, path: '/theirs' })]);
      expect(await paths(store, {})).toEqual(['/mine']);
    });

    it('filters by time: since inclusive, until exclusive', async () => {
      const store = await freshStore(make);
      await store.accessLogs.insertMany([10, 20, 30, 40].map((s) => row(s, { path: `/t${s}` })));
      expect(await paths(store, { since: at(20) })).toEqual(['/t20', '/t30', '/t40']);
      expect(await paths(store, { until: at(30) })).toEqual(['/t10', '/t20']);
      expect(await paths(store, { since: at(15), until: at(40) })).toEqual(['/t20', '/t30']);
    });

    it('filters by method and by status code', async () => {
      const store = await freshStore(make);
      await store.accessLogs.insertMany([
        row(1, { method: 'GET', statusCode: 200, path: '/a' }),
        row(2, { method: 'POST', statusCode: 201, path: '/b' }),
        row(3, { method: 'POST', statusCode: 400, path: '/c' }),
      ]);
      expect(await paths(store, { method: 'POST' })).toEqual(['/b', '/c']);
      expect(await paths(store, { statusCode: 400 })).toEqual(['/c']);
      expect(await paths(store, { method: 'POST', statusCode: 201 })).toEqual(['/b']);
      expect(await paths(store, { method: 'DELETE' })).toEqual([]);
    });

    it('filters by an exact, case-sensitive path prefix with % and _ literal', async () => {
      const store = await freshStore(make);
      const stored = ['/devices/1', '/devices/2/kv', '/Devices/3', '/dev', '/a%b/x', '/abb/x', '/a_c', '/abc'];
      await store.accessLogs.insertMany(stored.map((path, i) => row(i, { path })));
      expect(await paths(store, { pathPrefix: '/devices/' })).toEqual(['/devices/1', '/devices/2/kv']);
      expect(await paths(store, { pathPrefix: '/a%' })).toEqual(['/a%b/x']);
      expect(await paths(store, { pathPrefix: '/a_' })).toEqual(['/a_c']);
      expect(await paths(store, { pathPrefix: '/Devices' })).toEqual(['/Devices/3']);
    });

    it('returns latency as a number, values above 2^31 included', async () => {
      const store = await freshStore(make);
      const latencies = [0, 1, 2 ** 31 - 1, 2 ** 31, 5_000_000_000, 2 ** 52];
      await store.accessLogs.insertMany(latencies.map((latency, i) => row(i, { latency })));
      const listed = (await store.accessLogs.list({ projectId: 1 }, all)).items.map((r) => r.latency);
      for (const l of listed) expect(typeof l).toBe('number');
      expect(listed).toEqual([...latencies].reverse());
    });
  });
}
