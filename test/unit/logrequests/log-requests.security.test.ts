// Device log requests: who may act, what is never revealed, and the upload token as a credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, makeLogApi, openRequest, putRaw, startSession } from './setup.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';

let t: Awaited<ReturnType<typeof makeLogApi>>;
let deviceId = 0;
beforeAll(async () => {
  t = await makeLogApi();
  deviceId = (await seedDevice(t.deps)).device.id;
});
afterAll(() => t.close());

describe('log requests: common auth cases', () => {
  runCommonRouteTests(() => t, { method: 'GET', path: () => `/devices/${deviceId}/logRequests`, spec: 'getDeviceLogRequests' });
  runCommonRouteTests(() => t, { method: 'POST', path: () => `/devices/${deviceId}/logRequests`, spec: 'requestDeviceLogs', body: () => ({}) });
  runCommonRouteTests(() => t, { method: 'GET', path: () => `/devices/${deviceId}/logRequests/x`, spec: 'getDeviceLogRequest' });
  runCommonRouteTests(() => t, { method: 'DELETE', path: () => `/devices/${deviceId}/logRequests/x`, spec: 'deleteDeviceLogRequest' });
  runCommonRouteTests(() => t, { method: 'GET', path: () => `/devices/${deviceId}/logRequests/x/file` });
});

describe('log requests: access', () => {
  it("another project's key sees nothing: 403 where the list has no 404, else 404", async () => {
    const { request, device } = await openRequest(t);
    const other = await seedProject(t.deps);
    const create = await t.req('POST', `/devices/${device.id}/logRequests`, { token: other.adminKey, body: {} });
    expect(create.status).toBe(403);
    expect((await t.req('GET', `/devices/${device.id}/logRequests`, { token: other.adminKey })).status).toBe(403);
    const get = await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: other.adminKey });
    expect(get.status).toBe(404);
    expect(get.body.reason).toBe('DEVICE_NOT_FOUND');
    expect((await t.req('DELETE', `/devices/${device.id}/logRequests/${request.id}`, { token: other.adminKey })).status).toBe(404);
    expect((await t.req('GET', `/devices/${device.id}/logRequests/${request.id}/file`, { token: other.adminKey })).status).toBe(404);
  });

  it('the device itself, a user outside the home, a key without the devices scope: refused', async () => {
    const home = await seedHome(t.deps);
    const { device, key } = await seedDevice(t.deps, { homeId: home.id });
    const { token: outsider } = await seedUser(t.deps);
    const { key: kvOnly } = await seedKey(t.deps, { scopes: ['kv'] });
    for (const tok of [key, outsider, kvOnly]) {
      const res = await t.req('POST', `/devices/${device.id}/logRequests`, { token: tok, body: {} });
      expect(res.status).toBe(403);
    }
  });

  it("a request is found only through its own device's path", async () => {
    const { request } = await openRequest(t);
    const { device: other } = await seedDevice(t.deps);
    const res = await t.req('GET', `/devices/${other.id}/logRequests/${request.id}`, { token: t.adminKey });
    expect(res.status).toBe(404);
    expect(res.body.reason).toBe('REQUEST_NOT_FOUND');
  });
});

describe('log requests: the upload token', () => {
  it('is kept only as a hash, and shown only in the answer to the creation', async () => {
    const { device, request } = await openRequest(t);
    const row = await t.deps.store.logRequests.get(request.id);
    expect(JSON.stringify(row)).not.toContain(request.token);
    const list = await t.req('GET', `/devices/${device.id}/logRequests`, { token: t.adminKey });
    expect(JSON.stringify(list.body)).not.toContain(request.token);
  });

  it('never reaches the events history (webhook receivers see the KV event with it redacted)', async () => {
    const { device, request } = await openRequest(t);
    const events = await t.deps.store.events.list({ projectId: 1, deviceId: device.id }, { skip: 0, limit: 100 });
    const saved = events.items.find((e) => e.event.eventType === '_deviceKVSaved_');
    expect(saved?.event.eventData).toMatchObject({ key: 'sys:logRequest', value: { id: request.id, token: '[redacted]' } });
    expect(JSON.stringify(events.items)).not.toContain(request.token);
  });

  it('never reaches the access log or the general log', async () => {
    const { request } = await openRequest(t);
    const s = await startSession(t, request.token, 4);
    await putRaw(t, s.urls[0], bytes(4));
    await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`);
    await t.deps.accessLog.flush();
    const logs = await t.deps.store.logs.list({ projectId: 1 }, { skip: 0, limit: 1000 });
    const access = await t.deps.store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10000 });
    expect(JSON.stringify(logs.items)).not.toContain(request.token);
    expect(JSON.stringify(access.items)).not.toContain(request.token);
  });

  it("is not another request's credential, and an id is not a token", async () => {
    const a = await openRequest(t);
    const b = await openRequest(t);
    const s = await startSession(t, a.request.token, 4);
    // b's token with a's session: not b's session
    expect((await putRaw(t, s.urls[0].replace(a.request.token, b.request.token), bytes(4))).status).toBe(404);
    expect((await t.req('POST', `/deviceLogger/${a.request.id}`, { body: { size: 1, contentType: 'text/plain' } })).status).toBe(401);
  });

  it('the download is an attachment the browser may not sniff or run', async () => {
    const { device, request } = await openRequest(t);
    const s = await startSession(t, request.token, 12, { contentType: 'text/html', filename: 'na\u00efve log.html' });
    await putRaw(t, s.urls[0], new TextEncoder().encode('<script>1</script>').subarray(0, 12));
    await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`);
    const res = await t.app.request(`/devices/${device.id}/logRequests/${request.id}/file`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]*"; filename\*=UTF-8''/);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });
});
