// Scheduled reports (docs/concepts.md#reports): CRUD, manual runs, outputs computed from the real data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeReportApi, outputOf, parseCsv, runQueued } from './setup.js';
import type { TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome } from '../../helpers/store-seed.js';
import type { EventRecord } from '../../../src/ports/store.js';
import { newEventId } from '../../helpers/credentials.js';

let t: TestApi;
beforeAll(async () => {
  t = await makeReportApi();
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>) =>
  t.req('POST', '/scheduledReports', { token: t.adminKey, body: { schedule: { cron: '0 6 * * *', timezone: 'UTC' }, ...body } });
const insertEvent = (e: EventRecord) => t.deps.store.events.insert({ id: newEventId(new Date(e.timestamp)), projectId: 1, event: e });

describe('scheduled reports: CRUD', () => {
  it('creates a report with its next run in its time zone', async () => {
    const res = await create({ name: 'Morning', kind: 'devices', schedule: { cron: '0 8 * * *', timezone: 'Asia/Tokyo' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ projectId: 1, name: 'Morning', kind: 'devices', format: 'csv', destination: { type: 'store' }, enabled: true });
    // 08:00 in Tokyo is 23:00 UTC
    expect(res.body.nextRunTime).toMatch(/T23:00:00\.000Z$/);
    expect(Date.parse(res.body.nextRunTime)).toBeGreaterThan(Date.now());
    const got = await t.req('GET', `/scheduledReports/${res.body.id}`, { token: t.adminKey });
    expect(got.body).toEqual(res.body);
    const list = await t.req('GET', '/scheduledReports?projectId=1', { token: t.adminKey });
    expect(list.body.map((r: { id: string }) => r.id)).toContain(res.body.id);
    expect(list.headers.get('vnd.tinkermode.range')).toMatch(/^0-\d+\/\d+$/);
  });

  it('PATCH answers the updated record; disabling clears the next run, enabling sets it again', async () => {
    const { body: r } = await create({ name: 'x', kind: 'events', window: '1h' });
    const off = await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { enabled: false, name: 'renamed', format: 'json' } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: r.id, name: 'renamed', format: 'json', enabled: false, window: '1h' });
    expect(off.body.nextRunTime).toBeUndefined();
    const on = await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { ...off.body, enabled: true, schedule: { cron: '30 * * * *' } } });
    expect(on.status).toBe(200);
    expect(on.body.schedule).toEqual({ cron: '30 * * * *', timezone: 'UTC' });
    expect(on.body.nextRunTime).toMatch(/:30:00\.000Z$/);
    // a zone of its own; a later schedule without a zone keeps it (India is UTC+05:30)
    const zoned = await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { schedule: { cron: '0 9 * * *', timezone: 'Asia/Kolkata' } } });
    expect(zoned.body.nextRunTime).toMatch(/T03:30:00\.000Z$/);
    const kept = await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { schedule: { cron: '0 10 * * *' } } });
    expect(kept.body.schedule).toEqual({ cron: '0 10 * * *', timezone: 'Asia/Kolkata' });
    expect(kept.body.nextRunTime).toMatch(/T04:30:00\.000Z$/);
  });

  it('a webhook destination gets a key shown once; DELETE removes the report and its runs', async () => {
    const { body: r } = await create({ name: 'hook', kind: 'devices', destination: { type: 'webhook', url: 'http://127.0.0.1:9/r' } });
    expect(r.destination.key).toMatch(/^whk\.[A-Za-z0-9_-]{43}$/);
    expect((await t.req('GET', `/scheduledReports/${r.id}`, { token: t.adminKey })).body.destination.key).toMatch(/^whk\.\*\*\*\*/);
    await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    expect((await t.req('DELETE', `/scheduledReports/${r.id}`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', `/scheduledReports/${r.id}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.deps.store.reportRuns.list(r.id, { skip: 0, limit: 10 })).total).toBe(0);
  });
});

describe('scheduled reports: runs and outputs', () => {
  it('a manual run is 202 queued, then runs; its devices CSV matches the devices row by row', async () => {
    const home = await seedHome(t.deps);
    const a = (await seedDevice(t.deps, { homeId: home.id, name: 'kitchen, "north"', deviceClass: 'sensor', tag: '=SUM(A1)' })).device;
    const b = (await seedDevice(t.deps, { homeId: home.id, name: 'hall' })).device;
    await seedDevice(t.deps, { name: 'elsewhere' });
    const { body: r } = await create({ name: 'home devices', kind: 'devices', filter: { homeId: home.id } });
    const run = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ reportId: r.id, trigger: 'manual', status: 'queued' });
    expect(await runQueued(t.deps)).toBe(1);
    const done = await t.req('GET', `/scheduledReports/${r.id}/runs/${run.body.id}`, { token: t.adminKey });
    expect(done.body).toMatchObject({ status: 'success', rows: 2 });
    expect(done.body.startTime <= done.body.endTime).toBe(true);
    const out = await outputOf(t, r.id, run.body.id);
    expect(out.type).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(out.text);
    expect(rows[0]).toEqual([
      'id',
      'name',
      'deviceClass',
      'homeId',
      'tag',
      'isConnected',
      'lastConnectTime',
      'lastDisconnectTime',
      'creationTime',
      'claimTime',
      'bundleInstalled',
    ]);
    expect(rows.slice(1)).toEqual([
      [String(a.id), 'kitchen, "north"', 'sensor', String(home.id), "'=SUM(A1)", 'false', '', '', a.creationTime, '', ''],
      [String(b.id), 'hall', 'default', String(home.id), '', 'false', '', '', b.creationTime, '', ''],
    ]);
    const runs = await t.req('GET', `/scheduledReports/${r.id}/runs`, { token: t.adminKey });
    expect(runs.body.map((x: { id: string }) => x.id)).toEqual([run.body.id]);
  });

  it('an events report covers its window, oldest first, with the filter applied; JSON too', async () => {
    const { device } = await seedDevice(t.deps, { deviceClass: 'meter' });
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
    const inWindow = [
      { eventType: 'reading', eventData: { v: 1, note: 'a,b' }, timestamp: at(50), originDeviceId: device.id, originDeviceClass: 'meter' },
      { eventType: 'reading', eventData: { v: 2 }, timestamp: at(20), originDeviceId: device.id, originDeviceClass: 'meter' },
      { eventType: 'alarm', eventData: { level: 3 }, timestamp: at(10), originProjectKeyId: 'k1', originProjectKeyName: 'ops' },
    ];
    for (const e of [...inWindow, { eventType: 'reading', eventData: { v: 0 }, timestamp: at(90), originDeviceId: device.id, originDeviceClass: 'meter' }])
      await insertEvent(e);
    const { body: r } = await create({ name: 'readings', kind: 'events', window: '1h', filter: { eventTypes: ['reading', 'alarm'] } });
    const run = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    await runQueued(t.deps);
    const rows = parseCsv((await outputOf(t, r.id, run.body.id)).text);
    expect(rows[0]).toEqual(['timestamp', 'eventType', 'homeId', 'originDeviceId', 'originDeviceClass', 'originProjectKeyId', 'eventData']);
    const expected = inWindow.map((e) => [
      e.timestamp,
      e.eventType,
      '',
      'originDeviceId' in e ? String(e.originDeviceId) : '',
      'originDeviceClass' in e ? String(e.originDeviceClass) : '',
      'originProjectKeyId' in e ? String(e.originProjectKeyId) : '',
      JSON.stringify(e.eventData),
    ]);
    expect(rows.slice(1)).toEqual(expected);
    const got = await t.req('GET', `/scheduledReports/${r.id}/runs/${run.body.id}`, { token: t.adminKey });
    expect(got.body).toMatchObject({ rows: 3 });
    expect(Date.parse(got.body.until) - Date.parse(got.body.since)).toBe(3600_000);

    await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { format: 'json', filter: { eventTypes: ['alarm'] } } });
    const run2 = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    await runQueued(t.deps);
    const json = await outputOf(t, r.id, run2.body.id);
    expect(json.type).toBe('application/json');
    expect(JSON.parse(json.text)).toEqual([
      {
        timestamp: inWindow[2].timestamp,
        eventType: 'alarm',
        homeId: null,
        originDeviceId: null,
        originDeviceClass: null,
        originProjectKeyId: 'k1',
        eventData: '{"level":3}',
      },
    ]);
  });

  it('a long run shows its progress (rows so far) on the run record', async () => {
    const { body: r } = await create({ name: 'many', kind: 'devices' });
    const total = (await t.deps.store.devices.list({ projectId: 1 }, { skip: 0, limit: 1 })).total;
    const seen: number[] = [];
    const store = t.deps.store;
    const progress = store.reportRuns.progress;
    const watched = {
      ...t.deps,
      store: {
        ...store,
        reportRuns: {
          ...store.reportRuns,
          async progress(id: string, worker: string, rows: number, lease: string) {
            const ok = await progress(id, worker, rows, lease);
            seen.push((await store.reportRuns.get(id))!.rows!);
            return ok;
          },
        },
      },
    };
    const run = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    await runQueued(watched, { progressRows: 2 });
    expect(seen.length).toBe(Math.floor(total / 2));
    expect(seen).toEqual(seen.map((_, i) => (i + 1) * 2));
    expect((await t.req('GET', `/scheduledReports/${r.id}/runs/${run.body.id}`, { token: t.adminKey })).body.rows).toBe(total);
  });
});
