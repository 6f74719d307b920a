// Device log requests, the whole life cycle (docs/concepts.md#log-requests) through the HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, makeLogApi, openRequest, pathOf, putRaw, startSession } from './setup.js';
import { seedDevice, seedHome, seedUser } from '../../helpers/store-seed.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';

let t: Awaited<ReturnType<typeof makeLogApi>>;
beforeAll(async () => {
  t = await makeLogApi();
});
afterAll(() => t.close());

describe('log requests: happy paths', () => {
  it('creates a request with a token and tells the device through sys:logRequest', async () => {
    const { device } = await seedDevice(t.deps);
    const res = await t.req('POST', `/devices/${device.id}/logRequests`, {
      token: t.adminKey,
      body: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00.000Z', prefixes: ['app', 'sys'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ deviceId: device.id, projectId: 1, status: 'requested', start: '2026-01-01T00:00:00.000Z', prefixes: ['app', 'sys'] });
    expect(res.body.token).toMatch(/^lr\./);
    expect(new Date(res.body.ts).toISOString()).toBe(res.body.ts);
    const kv = await t.req('GET', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey });
    expect(kv.status).toBe(200);
    expect(kv.body.value).toEqual({
      id: res.body.id,
      token: res.body.token,
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-02T00:00:00.000Z',
      prefixes: ['app', 'sys'],
    });
  });

  it('takes a multi-part upload, stores the file and serves the same bytes with its type', async () => {
    const { device, request } = await openRequest(t);
    const data = bytes(2500);
    const session = await startSession(t, request.token, data.length, { contentType: 'application/gzip', filename: 'logs.tar.gz' });
    expect(session.numOfParts).toBe(3);
    expect(session.partSize).toBe(1000);
    expect(session.urls.map(pathOf)).toEqual([1, 2, 3].map((n) => `/deviceLogger/${request.token}/uploads/${session.uploadId}/parts/${n}`));
    const during = await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey });
    expect(during.body.status).toBe('uploading');
    for (let n = 0; n < 3; n++) {
      expect((await putRaw(t, session.urls[n], data.subarray(n * 1000, n * 1000 + 1000))).status).toBe(204);
    }
    const done = await t.req('POST', `/deviceLogger/${request.token}/uploads/${session.uploadId}`);
    expect(done.status).toBe(204);

    const got = await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey });
    expect(got.body).toMatchObject({ status: 'success', filename: 'logs.tar.gz', contentType: 'application/gzip', uploadId: session.uploadId });
    expect(got.body.token).toBeUndefined();
    expect(pathOf(got.body.url)).toBe(`/devices/${device.id}/logRequests/${request.id}/file`);

    const file = await t.app.request(pathOf(got.body.url), { headers: { authorization: `ModeCloud ${t.adminKey}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/gzip');
    expect(file.headers.get('content-disposition')).toContain('logs.tar.gz');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(data);
    // the request ended: its key is gone
    expect((await t.req('GET', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey })).status).toBe(404);
  });

  it('assembles parts sent in any order, and a part sent twice, by part number', async () => {
    const { device, request } = await openRequest(t);
    const data = bytes(2001, 3);
    const s = await startSession(t, request.token, data.length);
    expect(s.numOfParts).toBe(3);
    const part = (n: number) => data.subarray((n - 1) * 1000, n * 1000);
    for (const n of [3, 1, 2, 1]) expect((await putRaw(t, s.urls[n - 1], part(n))).status).toBe(204);
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`)).status).toBe(204);
    const file = await t.app.request(`/devices/${device.id}/logRequests/${request.id}/file`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(data);
  });

  it('lists newest first with the range header, and a home member may ask too', async () => {
    const home = await seedHome(t.deps);
    const { device } = await seedDevice(t.deps, { homeId: home.id });
    const { token } = await seedUser(t.deps, { homeId: home.id });
    const first = await t.req('POST', `/devices/${device.id}/logRequests`, { token, body: {} });
    expect(first.status).toBe(201);
    await t.req('PATCH', `/deviceLogger/${first.body.token}`, { body: { status: 'failure', reason: 'no logs' } });
    const second = await t.req('POST', `/devices/${device.id}/logRequests`, { token, body: {} });
    const list = await t.req('GET', `/devices/${device.id}/logRequests`, { token });
    expect(list.status).toBe(200);
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([second.body.id, first.body.id]);
    expect(list.body[1].status).toBe('failure');
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
  });

  it('a failure report ends the request and frees the device for a new one', async () => {
    const { device, request } = await openRequest(t);
    expect((await t.req('PATCH', `/deviceLogger/${request.token}`, { body: { status: 'failure' } })).status).toBe(204);
    expect((await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey })).body.status).toBe('failure');
    expect((await t.req('GET', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey })).status).toBe(404);
    expect((await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body: {} })).status).toBe(201);
  });

  it('deletes: a requested one is cancelled and removed, a finished one with its file', async () => {
    const { device, request } = await openRequest(t);
    const del = await t.req('DELETE', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey });
    expect(del.status).toBe(204);
    expectSpecStatus('deleteDeviceLogRequest', del.status, 204);
    expect((await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.req('GET', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey })).status).toBe(404);

    const again = await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body: {} });
    const s = await startSession(t, again.body.token, 10);
    await putRaw(t, s.urls[0], bytes(10));
    await t.req('POST', `/deviceLogger/${again.body.token}/uploads/${s.uploadId}`);
    expect((await t.req('DELETE', `/devices/${device.id}/logRequests/${again.body.id}`, { token: t.adminKey })).status).toBe(204);
    expect(await t.deps.blobs!.stat(`logs/${again.body.id}/file`)).toBeUndefined();
  });

  it('an empty log is a session of no parts', async () => {
    const { device, request } = await openRequest(t);
    const s = await startSession(t, request.token, 0);
    expect(s).toMatchObject({ numOfParts: 0, urls: [] });
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`)).status).toBe(204);
    const file = await t.app.request(`/devices/${device.id}/logRequests/${request.id}/file`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBe(0);
  });
});
