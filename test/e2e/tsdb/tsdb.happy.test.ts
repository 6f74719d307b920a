// Home time series end to end (docs/timeseries.md): a gateway in a home sends timeSeriesData events
// over MQTT; the home's members read the series, their time range and their data at several
// aggregations and resolutions, exactly; an owner deletes a series.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/wait.js';
import { backends, connectGateway, dataPath, tsdbWorld, type TsdbWorld } from './fixtures.js';

const T = Date.UTC(2026, 9, 1, 0, 0, 0);
const TEMP = '0101:28a183311676-temperature:0';
const HUM = '0101:28a183311676-humidity:0';
// a temperature point every 10 s for 2 hours: values 0..719 (i % 360 keeps minima and maxima easy to state)
const temp = (i: number) => ({ seriesId: TEMP, timestamp: new Date(T + i * 10_000).toISOString(), value: i % 360 });

describe.each(backends)('tsdb happy (%s)', (_name, backend) => {
  let w: TsdbWorld;
  beforeAll(async () => {
    w = await tsdbWorld(backend);
  });
  afterAll(async () => w?.close());

  it('stores the points of timeSeriesData events and answers list, one, timeRange and data exactly', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    for (let part = 0; part < 3; part++) {
      const points = Array.from({ length: 240 }, (_, k) => temp(part * 240 + k));
      // the first batch also carries a humidity point, with an epoch-milliseconds timestamp
      if (part === 0) points.push({ seriesId: HUM, timestamp: T as unknown as string, value: 55.5 });
      await gw.event('timeSeriesData', { timeSeriesData: points });
    }
    // realtimeData is not one of the module's event types: live only, not stored
    await gw.event('realtimeData', { timeSeriesData: [{ seriesId: 'live-only', timestamp: new Date(T).toISOString(), value: 1 }] });

    const list = await eventually(async () => {
      const r = await w.get('');
      return r.status === 200 && r.body.length === 2 && r.body;
    });
    expect(list).toEqual([
      { id: HUM, homeId: w.homeId, moduleId: 'tsdb' },
      { id: TEMP, homeId: w.homeId, moduleId: 'tsdb' },
    ]);
    expect(await w.get(`/${TEMP}`)).toMatchObject({ status: 200, body: { id: TEMP, homeId: w.homeId, moduleId: 'tsdb' } });
    expect((await w.get(`/${TEMP}/timeRange`)).body).toEqual({
      seriesId: TEMP,
      begin: new Date(T).toISOString(),
      end: new Date(T + 719 * 10_000).toISOString(),
    });

    // 1 hour buckets: each holds 360 points with values 0..359
    const hourly = await w.get(dataPath(TEMP, T, T + 2 * 3600_000, 'avg', '1hour'));
    expect(hourly.body).toEqual({
      seriesId: TEMP,
      aggregation: 'avg',
      begin: new Date(T).toISOString(),
      end: new Date(T + 7200_000).toISOString(),
      resolution: '1hour',
      data: [
        [new Date(T).toISOString(), 179.5],
        [new Date(T + 3600_000).toISOString(), 179.5],
      ],
    });
    for (const [aggregation, value] of [
      ['min', 0],
      ['max', 359],
      ['sum', 64_620],
      ['count', 360],
    ] as const) {
      expect((await w.get(dataPath(TEMP, T, T + 7200_000, aggregation, '1hour'))).body.data.map((d: unknown[]) => d[1])).toEqual([value, value]);
    }

    // 5 minute buckets from the 1 minute rollup: 24 buckets of 30 points; the first is 0..29
    const fiveMin = (await w.get(dataPath(TEMP, T, T + 7200_000, 'avg', '5min'))).body;
    expect(fiveMin.data).toHaveLength(24);
    expect(fiveMin.data[0]).toEqual([new Date(T).toISOString(), 14.5]);
    expect(fiveMin.data[13]).toEqual([new Date(T + 13 * 300_000).toISOString(), (30 * 13 - 360 + 30 * 13 - 360 + 29) / 2]);

    // the app's request has no resolution: about 1,000 buckets at most (2 hours: 15 s buckets, from the raw points)
    const auto = (await w.get(dataPath(TEMP, T, T + 7200_000, 'count'))).body;
    expect(auto.resolution).toBe('15sec');
    expect(auto.data).toHaveLength(480);
    expect(auto.data.every((d: unknown[]) => d[1] === 2 || d[1] === 1)).toBe(true);
    expect(auto.data.reduce((s: number, d: number[]) => s + d[1], 0)).toBe(720);

    // a range with gaps: empty buckets are left out
    const sparse = (await w.get(dataPath(HUM, T - 86_400_000, T + 86_400_000, 'avg', '1hour'))).body;
    expect(sparse.data).toEqual([[new Date(T).toISOString(), 55.5]]);
    expect((await w.get('/live-only')).status).toBe(404);
  });

  it('counts a resent event once', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    const series = 'resent-1';
    const batch = [0, 1, 2].map((i) => ({ seriesId: series, timestamp: new Date(T + i * 1000).toISOString(), value: i }));
    await gw.event('timeSeriesData', { timeSeriesData: batch });
    await gw.event('timeSeriesData', { timeSeriesData: batch });
    // positive control: a new point after the resend
    await gw.event('timeSeriesData', { timeSeriesData: [{ seriesId: series, timestamp: new Date(T + 3000).toISOString(), value: 3 }] });
    const count = async () => (await w.get(dataPath(series, T, T + 60_000, 'count', '1min'))).body?.data?.[0]?.[1];
    await eventually(async () => (await count()) !== undefined && (await w.get(`/${series}/timeRange`)).body.end === new Date(T + 3000).toISOString());
    expect(await count()).toBe(4);
  });

  it('lets an owner and a project key delete a series; its points go with it', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    const pts = (s: string) => [{ seriesId: s, timestamp: T, value: 1 }];
    await gw.event('timeSeriesData', { timeSeriesData: [...pts('gone-1'), ...pts('gone-2')] });
    await eventually(async () => (await w.get('/gone-2')).status === 200);
    const del = (s: string, token: string) => w.t.http('DELETE', `/homes/${w.homeId}/smartModules/tsdb/timeSeries/${s}`, { token });
    expect((await del('gone-1', w.owner)).status).toBe(204);
    expect((await del('gone-2', w.t.adminKey)).status).toBe(204);
    for (const s of ['gone-1', 'gone-2']) {
      expect((await w.get(`/${s}`)).status).toBe(404);
      expect((await w.get(`/${s}/timeRange`)).status).toBe(404);
    }
    expect((await w.get('')).body.map((s: { id: string }) => s.id)).not.toContain('gone-1');
    expect((await del('gone-1', w.owner)).status).toBe(404);
    // the same id again starts empty
    await gw.event('timeSeriesData', { timeSeriesData: [{ seriesId: 'gone-1', timestamp: T + 5000, value: 9 }] });
    await eventually(async () => (await w.get('/gone-1')).status === 200);
    expect((await w.get(dataPath('gone-1', T, T + 60_000, 'sum', '1min'))).body.data).toEqual([[new Date(T).toISOString(), 9]]);
  });

  it('answers monthly and weekly buckets from the day rollup', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    const s = 'calendar-1';
    // Jan 31, Feb 1, Feb 28 and Mar 2 2026 at noon
    const days = [Date.UTC(2026, 0, 31, 12), Date.UTC(2026, 1, 1, 12), Date.UTC(2026, 1, 28, 12), Date.UTC(2026, 2, 2, 12)];
    await gw.event('timeSeriesData', { timeSeriesData: days.map((d, i) => ({ seriesId: s, timestamp: d, value: i + 1 })) });
    await eventually(async () => (await w.get(`/${s}/timeRange`)).body?.end === new Date(days[3]).toISOString());
    const months = (await w.get(dataPath(s, Date.UTC(2026, 0, 1), Date.UTC(2026, 3, 1), 'sum', '1month'))).body;
    expect(months.data).toEqual([
      [new Date(Date.UTC(2026, 0, 1)).toISOString(), 1],
      [new Date(Date.UTC(2026, 1, 1)).toISOString(), 5],
      [new Date(Date.UTC(2026, 2, 1)).toISOString(), 4],
    ]);
    // weeks start on Monday: Jan 26, Feb 23 (Feb 28 and Mar 2 fall in different weeks: Feb 23 and Mar 2)
    const weeks = (await w.get(dataPath(s, Date.UTC(2026, 0, 26), Date.UTC(2026, 2, 9), 'count', '1week'))).body;
    expect(weeks.data).toEqual([
      [new Date(Date.UTC(2026, 0, 26)).toISOString(), 2],
      [new Date(Date.UTC(2026, 1, 23)).toISOString(), 1],
      [new Date(Date.UTC(2026, 2, 2)).toISOString(), 1],
    ]);
  });
});
