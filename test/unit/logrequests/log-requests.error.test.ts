// Device log requests: what is refused, and the broken uploads (docs/concepts.md#log-requests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytes, makeLogApi, openRequest, putRaw, startSession } from './setup.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { expireAbandonedUploads } from '../../../src/domain/logrequest/index.js';

let t: Awaited<ReturnType<typeof makeLogApi>>;
beforeAll(async () => {
  t = await makeLogApi();
});
afterAll(() => t.close());

const unknownToken = 'lr.' + 'A'.repeat(43);

describe('log requests: creation refused', () => {
  it('one open request per device: another is 403 BLOCKING_LOG_REQUEST, requested or uploading', async () => {
    const { device, request } = await openRequest(t);
    const second = await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body: {} });
    expect(second.status).toBe(403);
    expect(second.body).toMatchObject({ reason: 'BLOCKING_LOG_REQUEST', data: { requestId: request.id } });
    await startSession(t, request.token, 10);
    const third = await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body: {} });
    expect(third.body.reason).toBe('BLOCKING_LOG_REQUEST');
  });

  it('concurrent creations: exactly one wins', async () => {
    const { device } = await seedDevice(t.deps);
    const all = await Promise.all(Array.from({ length: 6 }, () => t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body: {} })));
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    expect(all.filter((r) => r.body?.reason === 'BLOCKING_LOG_REQUEST')).toHaveLength(5);
  });

  it('start after end, a bad time or bad prefixes: 403 INVALID_PARAMETERS', async () => {
    const { device } = await seedDevice(t.deps);
    for (const body of [
      { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' },
      { start: 'yesterday' },
      { end: '2026-02-30T00:00:00Z' },
      { prefixes: 'app' },
      { prefixes: [''] },
    ]) {
      const res = await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('the sys:logRequest key cannot be deleted by hand: 409 KEY_IN_USE', async () => {
    const { device } = await openRequest(t);
    const res = await t.req('DELETE', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('KEY_IN_USE');
  });
});

describe('log requests: broken uploads', () => {
  it('an unknown or malformed token is 401 INVALID_TOKEN on every upload call', async () => {
    for (const tok of [unknownToken, 'nonsense', 'lr.short']) {
      expect((await t.req('POST', `/deviceLogger/${tok}`, { body: { size: 1, contentType: 'text/plain' } })).body.reason).toBe('INVALID_TOKEN');
      expect((await t.req('PATCH', `/deviceLogger/${tok}`, { body: { status: 'failure' } })).status).toBe(401);
      expect((await t.req('POST', `/deviceLogger/${tok}/uploads/x`)).status).toBe(401);
      expect((await putRaw(t, `http://h/deviceLogger/${tok}/uploads/x/parts/1`, bytes(1))).status).toBe(401);
    }
  });

  it('a token of an ended request is spent (reused token)', async () => {
    const { request } = await openRequest(t);
    const s = await startSession(t, request.token, 5);
    await putRaw(t, s.urls[0], bytes(5));
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`)).status).toBe(204);
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`)).status).toBe(401);
    expect((await t.req('POST', `/deviceLogger/${request.token}`, { body: { size: 5, contentType: 'text/plain' } })).body.reason).toBe('INVALID_TOKEN');
    expect((await putRaw(t, s.urls[0], bytes(5))).status).toBe(401);
    expect((await t.req('PATCH', `/deviceLogger/${request.token}`, { body: { status: 'failure' } })).status).toBe(401);
  });

  it('a file over the limit, or a bad size or type, is refused at the start', async () => {
    const { request } = await openRequest(t);
    for (const body of [
      { size: 4097, contentType: 'text/plain' },
      { size: -1, contentType: 'text/plain' },
      { size: 1.5, contentType: 'text/plain' },
      { size: 10 },
      { size: 10, contentType: 'text/html<script>' },
      { size: 10, contentType: 'text/plain', filename: '../../etc/passwd' },
    ]) {
      const res = await t.req('POST', `/deviceLogger/${request.token}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('wrong part sizes: short, long, a wrong Content-Length; nothing is kept', async () => {
    const { request } = await openRequest(t);
    const s = await startSession(t, request.token, 1500);
    expect((await putRaw(t, s.urls[0], bytes(999))).body).toMatchObject({ reason: 'INVALID_PARAMETERS', data: { part: 1, expected: 1000 } });
    expect((await putRaw(t, s.urls[0], bytes(1001))).status).toBe(403);
    expect((await putRaw(t, s.urls[1], bytes(1000))).body.data).toMatchObject({ part: 2, expected: 500 });
    // a lying Content-Length is caught on the bytes themselves
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(bytes(700));
        c.close();
      },
    });
    const res = await t.app.request(new URL(s.urls[1]).pathname, { method: 'PUT', body: chunked, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(403);
    const done = await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`);
    expect(done.body).toMatchObject({ reason: 'INVALID_PARAMETERS', data: { missingParts: [1, 2] } });
  });

  it('parts out of range or order: numbers outside 1..N refused, completion before every part refused', async () => {
    const { request } = await openRequest(t);
    const s = await startSession(t, request.token, 2500);
    const base = s.urls[0].replace(/\/1$/, '');
    for (const n of ['0', '4', '-1', 'abc', '1.5']) expect((await putRaw(t, `${base}/${n}`, bytes(1000))).status, n).toBe(403);
    expect((await putRaw(t, s.urls[2], bytes(500))).status).toBe(204);
    const early = await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`);
    expect(early.body.data.missingParts).toEqual([1, 2]);
    expect(
      (await t.req('GET', `/devices/${(await t.deps.store.logRequests.get(request.id))!.deviceId}/logRequests/${request.id}`, { token: t.adminKey })).body
        .status,
    ).toBe('uploading');
  });

  it('a part for another upload session is 404; restarting replaces the session', async () => {
    const { request } = await openRequest(t);
    const first = await startSession(t, request.token, 10);
    expect((await putRaw(t, first.urls[0].replace(first.uploadId, 'nosuchsession'), bytes(10))).status).toBe(404);
    const second = await startSession(t, request.token, 20);
    expect((await putRaw(t, first.urls[0], bytes(10))).status).toBe(404);
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${first.uploadId}`)).status).toBe(404);
    expect((await putRaw(t, second.urls[0], bytes(20))).status).toBe(204);
    expect((await t.req('POST', `/deviceLogger/${request.token}/uploads/${second.uploadId}`)).status).toBe(204);
  });

  it('an abandoned upload expires: the request fails, its key goes, its token is spent', async () => {
    const { device, request } = await openRequest(t);
    const s = await startSession(t, request.token, 1500);
    await putRaw(t, s.urls[0], bytes(1000));
    const clock = t.deps.clock;
    t.deps.clock = { now: () => new Date(Date.now() + 61_000) };
    try {
      expect(await expireAbandonedUploads({ deps: t.deps })).toBeGreaterThanOrEqual(1);
      const got = await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey });
      expect(got.body.status).toBe('failure');
      expect((await t.req('GET', `/devices/${device.id}/kv/sys:logRequest`, { token: t.adminKey })).status).toBe(404);
      expect((await putRaw(t, s.urls[1], bytes(500))).status).toBe(401);
      expect(await t.deps.blobs!.stat(`logs/${request.id}/parts/${s.uploadId}/1`)).toBeUndefined();
    } finally {
      t.deps.clock = clock;
    }
  });

  it('an expired upload is also ended when its token is next used', async () => {
    const { device, request } = await openRequest(t);
    const s = await startSession(t, request.token, 10);
    const clock = t.deps.clock;
    t.deps.clock = { now: () => new Date(Date.now() + 61_000) };
    try {
      expect((await putRaw(t, s.urls[0], bytes(10))).status).toBe(401);
      expect((await t.req('GET', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey })).body.status).toBe('failure');
    } finally {
      t.deps.clock = clock;
    }
  });
});

describe('log requests: deletion rules', () => {
  it('an uploading request is in use: 409 REQUEST_IN_USE', async () => {
    const { device, request } = await openRequest(t);
    await startSession(t, request.token, 10);
    const res = await t.req('DELETE', `/devices/${device.id}/logRequests/${request.id}`, { token: t.adminKey });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('REQUEST_IN_USE');
  });

  it('a device that uploads cannot be deleted: 409 DEVICE_IN_USE; once done it can, with its requests', async () => {
    const { device, request } = await openRequest(t);
    const s = await startSession(t, request.token, 10);
    const res = await t.req('DELETE', `/devices/${device.id}`, { token: t.adminKey });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('DEVICE_IN_USE');
    await putRaw(t, s.urls[0], bytes(10));
    await t.req('POST', `/deviceLogger/${request.token}/uploads/${s.uploadId}`);
    expect(await t.deps.blobs!.stat(`logs/${request.id}/file`)).toBeDefined();
    expect((await t.req('DELETE', `/devices/${device.id}`, { token: t.adminKey })).status).toBe(204);
    // everything of the deleted device went with it
    expect(await t.deps.store.logRequests.get(request.id)).toBeUndefined();
    expect(await t.deps.blobs!.stat(`logs/${request.id}/file`)).toBeUndefined();
  });

  it('unknown ids: 404 REQUEST_NOT_FOUND on get and delete, 404 on a file not stored', async () => {
    const { device, request } = await openRequest(t);
    expect((await t.req('GET', `/devices/${device.id}/logRequests/nope`, { token: t.adminKey })).body.reason).toBe('REQUEST_NOT_FOUND');
    expect((await t.req('DELETE', `/devices/${device.id}/logRequests/nope`, { token: t.adminKey })).status).toBe(404);
    const file = await t.req('GET', `/devices/${device.id}/logRequests/${request.id}/file`, { token: t.adminKey });
    expect(file.status).toBe(404);
    expect((await t.req('GET', `/devices/abc/logRequests`, { token: t.adminKey })).status).toBe(403);
  });
});
