// Home time series, bad input (docs/timeseries.md): bad points are dropped and counted in the general
// log without failing their event; bad queries and module settings answer 403 INVALID_PARAMETERS (docs/api.md#errors) with the field;
// unknown series and modules 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/wait.js';
import { backends, connectGateway, dataPath, tsdbWorld, type TsdbWorld } from './fixtures.js';

const T = Date.UTC(2026, 9, 1, 0, 0, 0);

describe.each(backends)('tsdb errors (%s)', (_name, backend) => {
  let w: TsdbWorld;
  beforeAll(async () => {
    w = await tsdbWorld(backend);
  });
  afterAll(async () => w?.close());

  it('drops bad points, keeps the good ones and the event, and says so once in the general log', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    const bad = [
      { seriesId: '', timestamp: T, value: 1 },
      { seriesId: 'x'.repeat(257), timestamp: T, value: 1 },
      { seriesId: 'bad-1', timestamp: 'yesterday', value: 1 },
      { seriesId: 'bad-1', timestamp: '2026-10-01T00:00:00', value: 1 },
      { seriesId: 'bad-1', timestamp: -5, value: 1 },
      { seriesId: 'bad-1', timestamp: T, value: '3' },
      { seriesId: 'bad-1', timestamp: T, value: null },
      { seriesId: 7, timestamp: T, value: 1 },
      'not an object',
      null,
    ];
    await gw.event('timeSeriesData', { timeSeriesData: [...bad, { seriesId: 'good-1', timestamp: T, value: 2 }] });
    // not an array at all: one more dropped, the event still accepted (the PUBACK came)
    await gw.event('timeSeriesData', { timeSeriesData: { seriesId: 'bad-1', timestamp: T, value: 1 } });
    await eventually(async () => (await w.get('/good-1')).status === 200);
    const events = await w.t.http('GET', `/events?homeId=${w.homeId}`, { token: w.t.adminKey });
    expect(events.body.filter((e: { eventType: string }) => e.eventType === 'timeSeriesData').length).toBeGreaterThanOrEqual(2);
    expect((await w.get('')).body.map((s: { id: string }) => s.id)).toEqual(['good-1']);
    const lines = await eventually(async () => {
      const logs = await w.t.deps.store.logs.list({ projectId: 1 }, { skip: 0, limit: 100 });
      const l = logs.items.filter((x) => x.text.startsWith('tsdb:'));
      return l.length > 0 ? l : undefined;
    });
    // one line for the first drops of the minute; the later ones wait for the next line
    expect(lines).toHaveLength(1);
    expect(lines![0].text).toMatch(/^tsdb: 10 time-series point\(s\) dropped/);
  });

  it('refuses bad data queries with INVALID_PARAMETERS naming the field', async () => {
    const gw = await connectGateway(w.t, w.gateway);
    await gw.event('timeSeriesData', { timeSeriesData: [{ seriesId: 'q-1', timestamp: T, value: 1 }] });
    await eventually(async () => (await w.get('/q-1')).status === 200);
    const iso = (t: number) => new Date(t).toISOString();
    for (const [query, path] of [
      [`end=${iso(T)}`, 'begin'],
      [`begin=${iso(T)}`, 'end'],
      [`begin=yesterday&end=${iso(T)}`, 'begin'],
      [`begin=${iso(T)}&end=${iso(T)}`, 'end'],
      [`begin=${iso(T + 1000)}&end=${iso(T)}`, 'end'],
      [`begin=${iso(T)}&end=${iso(T + 1000)}&aggregation=median`, 'aggregation'],
      [`begin=${iso(T)}&end=${iso(T + 1000)}&resolution=2min`, 'resolution'],
      // 30 days at 5 s is 518,400 buckets
      [`begin=${iso(T)}&end=${iso(T + 30 * 86_400_000)}&resolution=5sec`, 'resolution'],
    ]) {
      const r = await w.get(`/q-1/data?${query}`);
      expect(r.status, query).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(
        r.body.data.issues.map((i: { path: string }) => i.path),
        query,
      ).toContain(path);
    }
    // epoch milliseconds are taken too
    expect((await w.get(`/q-1/data?begin=${T}&end=${T + 60_000}&resolution=1min`)).body.data).toEqual([[iso(T), 1]]);
  });

  it('answers 404 for an unknown series or module, and for a module that is not a tsdb module', async () => {
    const hooks = await w.t.http('POST', '/projects/1/smartModules', {
      token: w.t.adminKey,
      body: { id: 'hooks', eventWebhook: { url: 'http://127.0.0.1:9/' } },
    });
    expect(hooks.status).toBe(201);
    expect(await w.get('/nope')).toMatchObject({ status: 404, body: { reason: 'NOT_FOUND', data: { seriesId: 'nope' } } });
    expect((await w.get(`/nope/timeRange`)).status).toBe(404);
    expect((await w.get(dataPath('nope', T, T + 1000))).status).toBe(404);
    for (const moduleId of ['missing', 'hooks', 'x'.repeat(300)]) {
      const r = await w.t.http('GET', `/homes/${w.homeId}/smartModules/${moduleId}/timeSeries`, { token: w.member });
      expect(r.status, moduleId).toBe(404);
      expect(r.body.reason).toBe('MODULE_NOT_FOUND');
    }
    expect((await w.t.http('GET', `/homes/abc/smartModules/tsdb/timeSeries`, { token: w.member })).body.reason).toBe('HOME_NOT_FOUND');
  });

  it('refuses tsdb module settings that do not fit', async () => {
    const create = (body: unknown) => w.t.http('POST', '/projects/1/smartModules', { token: w.t.adminKey, body });
    for (const [body, path] of [
      [{ id: 'ts-a', moduleType: 'tsdb', eventWebhook: { url: 'https://example.com/x' } }, 'eventWebhook'],
      [{ id: 'ts-b', moduleType: 'tsdb', commandWebhook: { url: 'https://example.com/x' } }, 'commandWebhook'],
      [{ id: 'ts-c', moduleType: 'tsdb', tsdb: { eventTypes: [] } }, 'tsdb.eventTypes'],
      [{ id: 'ts-d', moduleType: 'tsdb', tsdb: { eventTypes: ['no spaces'] } }, 'tsdb.eventTypes.0'],
      [{ id: 'ts-e', moduleType: 'webhooks', tsdb: { eventTypes: ['a'] } }, 'tsdb'],
      [{ id: 'ts-f', moduleType: 'influx' }, 'moduleType'],
    ] as const) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.data.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const ok = await create({ id: 'ts-g', moduleType: 'tsdb', tsdb: { eventTypes: ['sensorData', 'sensorData'] } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ id: 'ts-g', moduleType: 'tsdb', tsdb: { eventTypes: ['sensorData'] } });
    expect(ok.body.eventWebhook).toBeUndefined();
    const patched = await w.t.http('PATCH', '/projects/1/smartModules/ts-g', { token: w.t.adminKey, body: { eventWebhook: { url: 'https://example.com/x' } } });
    expect(patched.status).toBe(403);
  });
});
