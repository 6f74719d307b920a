// Store contract: home time series (docs/timeseries.md#rollups). Points are kept once per (series,
// timestamp); the rollups answer the same sums, counts, minima and maxima as the raw points.
import { describe, expect, it } from 'vitest';
import type { Store, TsdbBucket, TsdbPoint } from '../../../src/ports/store.js';
import { freshStore, type MakeStore } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const key = { homeId: 7, moduleId: 'tsdb', seriesId: '0101:28a183311676-temperature:0' };
const pt = (ts: number, value: number, over: Partial<TsdbPoint> = {}): TsdbPoint => ({ projectId: 1, ...key, ts, value, ...over });

/** one point every `step` ms from T0, values 0, 1, 2, ... */
async function seed(store: Store, n: number, step: number): Promise<void> {
  const points: TsdbPoint[] = [];
  for (let i = 0; i < n; i++) points.push(pt(T0 + i * step, i));
  await store.transaction((tx) => tx.tsdb.ingest(points));
}

export function tsdbContract(make: MakeStore): void {
  describe('tsdb', () => {
    it('stores points, lists series and answers the time range', async () => {
      const store = await freshStore(make);
      expect(await store.tsdb.ingest([pt(T0 + 5000, 1.5), pt(T0, 2), pt(T0, 3, { seriesId: 'other' })])).toBe(3);
      expect(await store.tsdb.listSeries(7, 'tsdb')).toEqual([key.seriesId, 'other'].sort());
      expect(await store.tsdb.listSeries(8, 'tsdb')).toEqual([]);
      expect(await store.tsdb.exists(key)).toBe(true);
      expect(await store.tsdb.exists({ ...key, moduleId: 'tsdb2' })).toBe(false);
      expect(await store.tsdb.timeRange(key)).toEqual({ begin: T0, end: T0 + 5000 });
      expect(await store.tsdb.timeRange({ ...key, seriesId: 'none' })).toBeUndefined();
    });

    it('keeps the first point of a timestamp: a resent point counts once', async () => {
      const store = await freshStore(make);
      expect(await store.tsdb.ingest([pt(T0, 1), pt(T0, 99)])).toBe(1);
      expect(await store.tsdb.ingest([pt(T0, 5), pt(T0 + 1000, 2)])).toBe(1);
      const q = { begin: T0, end: T0 + MIN, width: MIN, offset: 0 };
      for (const source of ['raw', '1min'] as const) {
        expect(await store.tsdb.buckets(key, { ...q, source })).toEqual([{ start: T0, sum: 3, count: 2, min: 1, max: 2 }]);
      }
    });

    it('rollups at 1 min, 1 hour and 1 day agree with the raw points', async () => {
      const store = await freshStore(make);
      // a point every 10 s for 2 days and a bit: 17,400 points, in several batches so rollup rows are updated, not only inserted
      for (let part = 0; part < 3; part++) {
        const points: TsdbPoint[] = [];
        for (let i = part * 5800; i < (part + 1) * 5800; i++) points.push(pt(T0 + i * 10_000, (i % 100) - 50));
        await store.tsdb.ingest(points);
      }
      const range = { begin: T0, end: T0 + 3 * DAY };
      for (const [width, sources] of [
        [MIN, ['raw', '1min']],
        [HOUR, ['raw', '1min', '1hour']],
        [6 * HOUR, ['raw', '1min', '1hour']],
        [DAY, ['raw', '1min', '1hour', '1day']],
      ] as const) {
        const answers: TsdbBucket[][] = [];
        for (const source of sources) answers.push(await store.tsdb.buckets(key, { ...range, width, offset: 0, source }));
        for (const a of answers.slice(1)) {
          expect(a.length).toBe(answers[0].length);
          a.forEach((b, i) => {
            const r = answers[0][i];
            expect(b.start).toBe(r.start);
            expect(b.count).toBe(r.count);
            expect(b.min).toBe(r.min);
            expect(b.max).toBe(r.max);
            expect(b.sum).toBeCloseTo(r.sum, 6);
          });
        }
      }
      const days = await store.tsdb.buckets(key, { ...range, width: DAY, offset: 0, source: '1day' });
      expect(days.map((d) => [d.start, d.count])).toEqual([
        [T0, 8640],
        [T0 + DAY, 8640],
        [T0 + 2 * DAY, 120],
      ]);
      expect(days[0]).toMatchObject({ min: -50, max: 49 });
    });

    it('buckets with an offset (weeks start on Monday) and leaves empty buckets out', async () => {
      const store = await freshStore(make);
      await store.tsdb.ingest([pt(T0, 1), pt(T0 + 10 * DAY, 2)]);
      // 2026-01-01 is a Thursday: its week began on Monday 2025-12-29
      const monday = Date.UTC(2025, 11, 29);
      const weeks = await store.tsdb.buckets(key, { source: '1day', begin: monday, end: monday + 3 * 7 * DAY, width: 7 * DAY, offset: 4 * DAY });
      expect(weeks.map((w) => [w.start, w.count])).toEqual([
        [monday, 1],
        [monday + 7 * DAY, 1],
      ]);
    });

    it('reads only [begin, end)', async () => {
      const store = await freshStore(make);
      await seed(store, 10, MIN);
      const b = await store.tsdb.buckets(key, { source: '1min', begin: T0 + 2 * MIN, end: T0 + 5 * MIN, width: MIN, offset: 0 });
      expect(b.map((x) => x.sum)).toEqual([2, 3, 4]);
      const raw = await store.tsdb.buckets(key, { source: 'raw', begin: T0 + 2 * MIN, end: T0 + 5 * MIN, width: 3 * MIN, offset: 0 });
      expect(raw).toEqual([
        { start: T0, sum: 2, count: 1, min: 2, max: 2 },
        { start: T0 + 3 * MIN, sum: 7, count: 2, min: 3, max: 4 },
      ]);
    });

    it('deletes a series with its points, and a module with its series', async () => {
      const store = await freshStore(make);
      await store.tsdb.ingest([pt(T0, 1), pt(T0, 2, { seriesId: 'b' }), pt(T0, 3, { moduleId: 'other' })]);
      expect(await store.transaction((tx) => tx.tsdb.deleteSeries(key))).toBe(true);
      expect(await store.tsdb.deleteSeries(key)).toBe(false);
      expect(await store.tsdb.buckets(key, { source: 'raw', begin: T0, end: T0 + DAY, width: DAY, offset: 0 })).toEqual([]);
      // the same series id again starts from nothing
      await store.tsdb.ingest([pt(T0 + 1000, 4)]);
      expect(await store.tsdb.buckets(key, { source: '1day', begin: T0, end: T0 + DAY, width: DAY, offset: 0 })).toEqual([
        { start: T0, sum: 4, count: 1, min: 4, max: 4 },
      ]);
      expect(await store.tsdb.deleteModule(1, 'tsdb')).toBe(2);
      expect(await store.tsdb.listSeries(7, 'tsdb')).toEqual([]);
      expect(await store.tsdb.listSeries(7, 'other')).toEqual(['0101:28a183311676-temperature:0']);
    });

    it('prunes points older than the cutoff in batches, and their rollups', async () => {
      const store = await freshStore(make);
      await seed(store, 50, HOUR);
      expect(await store.tsdb.prune(T0 + 30 * HOUR, 20)).toBe(20);
      expect(await store.tsdb.prune(T0 + 30 * HOUR, 20)).toBe(10);
      expect(await store.tsdb.prune(T0 + 30 * HOUR, 20)).toBe(0);
      expect(await store.tsdb.timeRange(key)).toEqual({ begin: T0 + 30 * HOUR, end: T0 + 49 * HOUR });
      const hours = await store.tsdb.buckets(key, { source: '1hour', begin: T0, end: T0 + 3 * DAY, width: HOUR, offset: 0 });
      expect(hours[0].start).toBe(T0 + 30 * HOUR);
      expect(hours).toHaveLength(20);
    });
  });
}
