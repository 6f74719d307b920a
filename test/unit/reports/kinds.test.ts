// The report kinds computed from real data (docs/concepts.md#reports): connectivity (time connected per device
// over the window) and webhook deliveries, straight from the store.
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeSqliteStore } from '../../helpers/db.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { reportTable, type Row } from '../../../src/domain/report/index.js';
import type { ReportRow, Store } from '../../../src/ports/store.js';
import { newEventId, sealerOf } from '../../helpers/credentials.js';

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const window = { since: at(0), until: at(100) };

function report(kind: ReportRow['kind'], filter: ReportRow['filter'] = null): ReportRow {
  return {
    id: 'r',
    projectId: 1,
    name: 'r',
    description: null,
    kind,
    filter,
    window: '100m',
    format: 'csv',
    schedule: { cron: '@daily', timezone: 'UTC' },
    destination: { type: 'store' },
    keySealed: null,
    enabled: true,
    creationTime: at(0),
    modificationTime: at(0),
    lastRunTime: null,
    nextRunTime: null,
    leaseOwner: null,
  };
}

async function rowsOf(store: Store, r: ReportRow): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of reportTable(store, r, window).rows) out.push(row);
  return out;
}

async function connectivity(store: Store, deviceId: number, type: 'c' | 'd', minute: number, transport = 'mqtt') {
  const eventType = type === 'c' ? '_deviceConnected_' : '_deviceDisconnected_';
  const ts = at(minute);
  await store.events.insert({
    id: newEventId(new Date(ts)),
    projectId: 1,
    event: { eventType, eventData: { transport }, timestamp: ts, originDeviceId: deviceId, originDeviceClass: 'default' },
  });
}

describe('report kinds', () => {
  it('connectivity: time connected per device over the window', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    await store.projects.create({ name: 'p', creationTime: at(0) });
    const seed = { store, sealer: sealerOf('test-secret-test-secret') };
    const a = (await seedDevice(seed)).device; // connected before the window, out at 30, in at 60 to the end
    const b = (await seedDevice(seed)).device; // in at 10 on mqtt, in at 20 on websocket, mqtt out at 40, ws out at 50
    const c = (await seedDevice(seed)).device; // never connected
    const d = (await seedDevice(seed, { deviceClass: 'other' })).device; // disconnected before the window: nothing
    await connectivity(store, a.id, 'c', -500);
    await connectivity(store, a.id, 'd', 30);
    await connectivity(store, a.id, 'c', 60);
    await connectivity(store, b.id, 'c', 10, 'mqtt');
    await connectivity(store, b.id, 'c', 20, 'websocket');
    await connectivity(store, b.id, 'd', 40, 'mqtt');
    await connectivity(store, b.id, 'd', 50, 'websocket');
    await connectivity(store, d.id, 'c', -300);
    await connectivity(store, d.id, 'd', -200);
    await connectivity(store, a.id, 'd', 150); // after the window: ignored
    const rows = await rowsOf(store, report('connectivity'));
    const by = new Map(rows.map((r) => [r.deviceId, r]));
    expect(by.get(a.id)).toMatchObject({ connectedSeconds: 70 * 60, connectedPercent: 70, connects: 1, disconnects: 1, connectedAtEnd: true });
    expect(by.get(b.id)).toMatchObject({ connectedSeconds: 40 * 60, connectedPercent: 40, connects: 2, disconnects: 2, connectedAtEnd: false });
    expect(by.get(c.id)).toMatchObject({ connectedSeconds: 0, connects: 0, connectedAtEnd: false });
    expect(by.get(d.id)).toMatchObject({ connectedSeconds: 0, connectedAtEnd: false });
    const filtered = await rowsOf(store, report('connectivity', { deviceClass: 'other' }));
    expect(filtered.map((r) => r.deviceId)).toEqual([d.id]);
  });

  it('deliveries: each webhook delivery created in the window with its outcome so far', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const base = { projectId: 1, moduleId: 'hooks', kind: 'event' as const, eventId: null, payload: '{}' };
    await store.deliveries.insertMany([
      { ...base, id: 'd1', eventType: 'reading', creationTime: at(5) },
      { ...base, id: 'd2', eventType: 'alarm', creationTime: at(7) },
      { ...base, id: 'd0', eventType: 'reading', creationTime: at(-5) },
    ]);
    const claimed = await store.deliveries.claim({ workerId: 'w', now: at(8), leaseUntil: at(9), limit: 3 });
    expect(claimed.map((d) => d.id).sort()).toEqual(['d0', 'd1', 'd2']);
    await store.deliveries.release(['d0', 'd2'], 'w', at(7));
    await store.deliveries.complete('d1', 'w', {
      status: 'failed',
      attempts: [{ time: at(8), statusCode: 500, error: 'HTTP_500', latencyMs: 3, response: 'oops' }],
      roundAttempts: 1,
      nextAttemptTime: null,
      updateTime: at(8),
    });
    const rows = await rowsOf(store, report('deliveries'));
    expect(rows).toEqual([
      {
        creationTime: at(5),
        id: 'd1',
        moduleId: 'hooks',
        kind: 'event',
        eventType: 'reading',
        status: 'failed',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'HTTP_500',
        updateTime: at(8),
      },
      {
        creationTime: at(7),
        id: 'd2',
        moduleId: 'hooks',
        kind: 'event',
        eventType: 'alarm',
        status: 'pending',
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        updateTime: at(7),
      },
    ]);
    expect((await rowsOf(store, report('deliveries', { eventTypes: ['alarm'] }))).map((r) => r.id)).toEqual(['d2']);
  });
});
