// PUT /devices/{id}/event (docs/api.md#device-operations sendDeviceEventCloud, docs/concepts.md#events; docs/concepts.md#devices) through
// app.request(): the origin fields by caller, validation, the statuses the operation may answer;
// and the plain GETs of the WebSocket endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import type { TestApi } from '../../helpers/api.js';
import { makeFixtures, type Fixtures } from './fixtures.js';

let f: Fixtures;
let t: TestApi;
let device: Fixtures['device'];
beforeAll(async () => {
  f = await makeFixtures();
  ({ t, device } = f);
});
afterAll(() => t?.close());

describe('PUT /devices/{id}/event (sendDeviceEventCloud)', () => {
  runCommonRouteTests(() => t, {
    method: 'PUT',
    path: () => `/devices/${device.id}/event`,
    body: () => ({ eventType: 'x', eventData: {} }),
    spec: 'sendDeviceEventCloud',
  });

  it('from the device: 204, stored with timestamp, homeId and originDevice fields', async () => {
    const bus = f.nextOnBus('event');
    const r = await t.req('PUT', `/devices/${device.id}/event`, {
      token: device.key,
      body: { eventType: 'button_pressed', eventData: { n: 1 }, homeId: 999, timestamp: 'nope' },
    });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const rows = await t.deps.store.events.list({ projectId: 1, eventType: 'button_pressed' }, { skip: 0, limit: 5 });
    expect(rows.items).toHaveLength(1);
    const e = rows.items[0].event;
    expect(e).toEqual({
      eventType: 'button_pressed',
      eventData: { n: 1 },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      homeId: f.homeId,
      originDeviceId: device.id,
      originDeviceClass: 'default',
      originDeviceIp: '127.0.0.1',
    });
    expect((await bus).event).toEqual(e);
  });

  it('from a project key with scope events: originProjectKeyId and Name, no device origin', async () => {
    const k = await f.seedKey(['events']);
    const r = await t.req('PUT', `/devices/${device.id}/event`, { token: k.key, body: { eventType: 'fromKey', eventData: {} } });
    expect(r.status).toBe(204);
    const e = (await t.deps.store.events.list({ projectId: 1, eventType: 'fromKey' }, { skip: 0, limit: 1 })).items[0].event;
    expect(e).toMatchObject({ originProjectKeyId: k.id, originProjectKeyName: k.name, homeId: f.homeId });
    expect(e.originDeviceId).toBeUndefined();
  });

  it('is refused to keys without `events`, to home members, to other devices', async () => {
    const other = await f.seedDevice();
    const noEvents = await f.seedKey(['devices']);
    const cases: [string, number, string][] = [
      [noEvents.key, 403, 'PERMISSION_DENIED'],
      [f.member, 403, 'PERMISSION_DENIED'],
      [other.key, 404, 'DEVICE_NOT_FOUND'],
    ];
    for (const [token, status, reason] of cases) {
      const r = await t.req('PUT', `/devices/${device.id}/event`, { token, body: { eventType: 'x', eventData: {} } });
      expect([r.status, r.body.reason]).toEqual([status, reason]);
      expectSpecStatus('sendDeviceEventCloud', r.status, 204);
    }
  });

  const invalid: [string, unknown][] = [
    ['no eventType', { eventData: {} }],
    ['no eventData', { eventType: 'x' }],
    ['an eventType starting with _', { eventType: '_deviceConnected_', eventData: {} }],
    ['an eventType with a double dash', { eventType: 'a--b', eventData: {} }],
    ['an eventType ending with a dash', { eventType: 'a-', eventData: {} }],
    ['eventData that is an array', { eventType: 'x', eventData: [] }],
    ['eventData that is null', { eventType: 'x', eventData: null }],
    ['eventData over 64 KiB', { eventType: 'x', eventData: { s: 'y'.repeat(65_536) } }],
  ];
  for (const [name, body] of invalid) {
    it(`refuses ${name} with 403 INVALID_PARAMETERS`, async () => {
      const r = await t.req('PUT', `/devices/${device.id}/event`, { token: device.key, body });
      expect([r.status, r.body.reason]).toEqual([403, 'INVALID_PARAMETERS']);
    });
  }

  it('accepts every eventType form the documented pattern allows', async () => {
    for (const eventType of ['a', 'A1', 'door-open', 'door_open2', 'x-y_z-1']) {
      const r = await t.req('PUT', `/devices/${device.id}/event`, { token: device.key, body: { eventType, eventData: {} } });
      expect(r.status, eventType).toBe(204);
    }
  });
});

describe('GET without the WebSocket upgrade', () => {
  it('GET /devices/{id}/command tells the device to upgrade (403), others as usual', async () => {
    const r = await t.req('GET', `/devices/${device.id}/command`, { token: device.key });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(r.body.data.issues[0].message).toContain('WebSocket');
    expect((await t.req('GET', `/devices/${device.id}/command`, { token: t.adminKey })).body.reason).toBe('PERMISSION_DENIED');
    const none = await t.req('GET', `/devices/${device.id}/command`);
    expect([none.status, none.body.reason]).toEqual([403, 'AUTHORIZATION_REQUIRED']);
  });

  it('GET /userSession/websocket: 401 without a credential, 403 with one', async () => {
    expect((await t.req('GET', '/userSession/websocket')).status).toBe(401);
    const r = await t.req('GET', `/userSession/websocket?authToken=${encodeURIComponent(f.member)}`);
    expect([r.status, r.body.reason]).toEqual([403, 'INVALID_PARAMETERS']);
  });

  it('documents the realtime operations in /openapi.json', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body;
    expect(doc.paths['/devices/{deviceId}/command'].put.operationId).toBe('sendCommandDevice');
    expect(doc.paths['/devices/{deviceId}/command'].get.responses['101']).toBeDefined();
    expect(doc.paths['/devices/{deviceId}/event'].put.operationId).toBe('sendDeviceEventCloud');
    expect(doc.paths['/userSession/websocket'].get.operationId).toBe('userEventStream');
  });
});
