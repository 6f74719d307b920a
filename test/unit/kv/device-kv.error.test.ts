// Device key-value store: invalid input, missing pairs, service-held keys, limits. Every answer
// is one of the statuses docs/api.md#device-operations lists for the operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { setKv, deviceStore } from '../../../src/domain/kv/index.js';

describe('device key-value store: errors', () => {
  let t: TestApi;
  let deviceId: number;
  beforeAll(async () => {
    t = await makeTestApi({ limits: { kvKeysPerStore: 3, kvValueBytes: 1024 } });
    ({
      device: { id: deviceId },
    } = await seedDevice(t.deps));
  });
  afterAll(() => t.close());

  const path = (key: string, id: number | string = deviceId) => `/devices/${id}/kv/${key}`;

  it('answers 404 KEY_NOT_FOUND for a missing pair on lookUp and delete', async () => {
    const get = await t.req('GET', path('missing'), { token: t.adminKey });
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ reason: 'KEY_NOT_FOUND', data: { key: 'missing' } });
    const del = await t.req('DELETE', path('missing'), { token: t.adminKey });
    expect(del.status).toBe(404);
    expect(del.body.reason).toBe('KEY_NOT_FOUND');
  });

  const badKeys: [string, string][] = [
    ['ends with a dash', 'abc-'],
    ['starts with an underscore', '_abc'],
    ['has a dot', 'a.b'],
    ['has a space (encoded)', 'a%20b'],
    ['has an encoded slash', 'a%2Fb'],
    ['is 257 characters', 'k'.repeat(257)],
    ['is non-ASCII', '%C3%A9t%C3%A9'],
  ];
  for (const [what, key] of badKeys) {
    it(`refuses a key in the path that ${what} with 403 INVALID_PARAMETERS on PUT, GET and DELETE`, async () => {
      for (const method of ['PUT', 'GET', 'DELETE']) {
        const r = await t.req(method, path(key), { token: t.adminKey, body: method === 'PUT' ? { value: 1 } : undefined });
        expect(r.status, `${method} ${key}`).toBe(403);
        expect(r.body.reason).toBe('INVALID_PARAMETERS');
        expect(r.body.data.issues[0].path).toBe('key');
      }
    });
  }

  it('refuses a body without value, with value null, or of the wrong shape with 403 INVALID_PARAMETERS', async () => {
    for (const body of [{}, { value: null }, { other: 1 }, []]) {
      const r = await t.req('PUT', path('k'), { token: t.adminKey, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expectSpecStatus('createUpdateKeyValuePair', r.status, 204);
    }
  });

  it('refuses malformed JSON with 403 INVALID_JSON', async () => {
    const r = await t.req('PUT', path('k'), { token: t.adminKey, raw: '{"value": ' });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_JSON');
  });

  it('refuses a value larger than the KV value limit (docs/api.md#limits) and keeps the old one', async () => {
    await t.req('PUT', path('big'), { token: t.adminKey, body: { value: 'small' } });
    const r = await t.req('PUT', path('big'), { token: t.adminKey, body: { value: 'x'.repeat(1100) } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect((await t.req('GET', path('big'), { token: t.adminKey })).body.value).toBe('small');
  });

  it('refuses a new key beyond the keys-per-store limit with 403 LIMIT_EXCEEDED, but still updates existing keys', async () => {
    const { device } = await seedDevice(t.deps);
    for (const k of ['k1', 'k2', 'k3']) expect((await t.req('PUT', path(k, device.id), { token: t.adminKey, body: { value: 1 } })).status).toBe(204);
    const r = await t.req('PUT', path('k4', device.id), { token: t.adminKey, body: { value: 1 } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('LIMIT_EXCEEDED');
    expect((await t.req('PUT', path('k1', device.id), { token: t.adminKey, body: { value: 2 } })).status).toBe(204);
  });

  it('answers a device id that is not a positive integer as a missing device (404, or 403 where the documented list has no 404)', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999999999999']) {
      const put = await t.req('PUT', path('k', id), { token: t.adminKey, body: { value: 1 } });
      expect(put.status, id).toBe(404);
      expect(put.body.reason).toBe('DEVICE_NOT_FOUND');
      const list = await t.req('GET', `/devices/${id}/kv`, { token: t.adminKey });
      expect(list.status, id).toBe(403);
      expect(list.body.reason).toBe('DEVICE_NOT_FOUND');
    }
  });

  it('answers an unknown device 404 DEVICE_NOT_FOUND on lookUp, createUpdate and delete', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await t.req(method, path('k', 987654), { token: t.adminKey, body: method === 'PUT' ? { value: 1 } : undefined });
      expect(r.status, method).toBe(404);
      expect(r.body.reason).toBe('DEVICE_NOT_FOUND');
    }
  });

  it('answers 409 KEY_IN_USE when deleting a sys: key the service holds (docs/api.md#device-operations rule 8), 404 when there is none', async () => {
    const { device } = await seedDevice(t.deps);
    await setKv({ deps: t.deps, input: { target: deviceStore(device), key: 'sys:logRequest', value: { id: 'r1' }, asService: true } });
    const del = await t.req('DELETE', path('sys:logRequest', device.id), { token: t.adminKey });
    expect(del.status).toBe(409);
    expect(del.body.reason).toBe('KEY_IN_USE');
    // still there, and readable
    expect((await t.req('GET', path('sys:logRequest', device.id), { token: t.adminKey })).body.value).toEqual({ id: 'r1' });
    const none = await t.req('DELETE', path('sys:other', device.id), { token: t.adminKey });
    expect(none.status).toBe(404);
  });

  it('refuses a client write to a sys: key with 403 PERMISSION_DENIED', async () => {
    const r = await t.req('PUT', path('sys:logRequest'), { token: t.adminKey, body: { value: 'forged' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
  });

  it('refuses an over-long keyPrefix on the list with 403 INVALID_PARAMETERS', async () => {
    const r = await t.req('GET', `/devices/${deviceId}/kv?keyPrefix=${'a'.repeat(257)}`, { token: t.adminKey });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
  });

  it('refuses a bad skip or limit with 403 INVALID_PARAMETERS', async () => {
    for (const q of ['limit=0', 'limit=10001', 'skip=-1', 'limit=abc']) {
      const r = await t.req('GET', `/devices/${deviceId}/kv?${q}`, { token: t.adminKey });
      expect(r.status, q).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('answers a wrong method on a KV path with 405 METHOD_NOT_ALLOWED', async () => {
    const r = await t.req('POST', path('k'), { token: t.adminKey, body: { value: 1 } });
    expect(r.status).toBe(405);
    expect(r.body.reason).toBe('METHOD_NOT_ALLOWED');
  });
});
