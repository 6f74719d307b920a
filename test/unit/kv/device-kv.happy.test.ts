// Device key-value store, the paths that succeed (docs/api.md#device-operations, docs/devices.md#kv-sync).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedKey, seedUser } from '../../helpers/store-seed.js';
import type { BusMessages } from '../../../src/ports/bus.js';

describe('device key-value store: happy paths', () => {
  let t: TestApi;
  let deviceId: number;
  let deviceKey: string;
  let memberToken: string;
  let kvKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    const home = await seedHome(t.deps);
    ({
      device: { id: deviceId },
      key: deviceKey,
    } = await seedDevice(t.deps, { homeId: home.id }));
    ({ token: memberToken } = await seedUser(t.deps, { homeId: home.id }));
    ({ key: kvKey } = await seedKey(t.deps, { scopes: ['kv'] }));
  });
  afterAll(() => t.close());

  const path = (key = '') => `/devices/${deviceId}/kv${key ? '/' + key : ''}`;

  it('stores a value with PUT (204, empty body) and reads it back with its modification time', async () => {
    const put = await t.req('PUT', path('color'), { token: t.adminKey, body: { value: 'blue' } });
    expect(put.status).toBe(204);
    expect(put.body).toBeUndefined();
    const get = await t.req('GET', path('color'), { token: t.adminKey });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ key: 'color', value: 'blue', modificationTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  });

  it('accepts every JSON value but null (docs/devices.md#kv-sync) and replaces on a second PUT', async () => {
    for (const value of [42, true, ['a', 1], { nested: { x: 1 } }, 'text']) {
      expect((await t.req('PUT', path('anything'), { token: t.adminKey, body: { value } })).status).toBe(204);
      expect((await t.req('GET', path('anything'), { token: t.adminKey })).body.value).toEqual(value);
    }
  });

  it('accepts a form-encoded body, as device firmware sends (docs/api.md#conventions)', async () => {
    expect((await t.req('PUT', path('formKey'), { token: deviceKey, form: { value: 'from-form' } })).status).toBe(204);
    expect((await t.req('GET', path('formKey'), { token: deviceKey })).body.value).toBe('from-form');
  });

  it('lets the device itself, a home member and a project key with scope kv read and write', async () => {
    for (const [who, token] of [
      ['device', deviceKey],
      ['member', memberToken],
      ['kv key', kvKey],
    ] as const) {
      expect((await t.req('PUT', path(`by-${who.replace(' ', '-')}`), { token, body: { value: who } })).status, who).toBe(204);
      const list = await t.req('GET', path(), { token });
      expect(list.status, who).toBe(200);
      expect(list.body.map((i: { key: string }) => i.key)).toContain(`by-${who.replace(' ', '-')}`);
    }
  });

  it('accepts keys with the allowed punctuation and exactly 256 characters (docs/concepts.md#key-value-stores)', async () => {
    const long = 'k'.repeat(256);
    for (const key of ['a', 'a:b-c_d', 'A9', long]) {
      expect((await t.req('PUT', path(key), { token: t.adminKey, body: { value: 1 } })).status, key).toBe(204);
      expect((await t.req('GET', path(key), { token: t.adminKey })).body.key).toBe(key);
    }
  });

  it('lists all pairs sorted by key with the range header, and filters by keyPrefix', async () => {
    const { deps } = t;
    const { device } = await seedDevice(deps);
    const p = `/devices/${device.id}/kv`;
    for (const key of ['b1', 'a1', 'a2', 'c1']) await t.req('PUT', `${p}/${key}`, { token: t.adminKey, body: { value: key } });
    const all = await t.req('GET', p, { token: t.adminKey });
    expect(all.body.map((i: { key: string }) => i.key)).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(all.headers.get('vnd.tinkermode.range')).toBe('0-3/4');
    const pre = await t.req('GET', `${p}?keyPrefix=a`, { token: t.adminKey });
    expect(pre.body).toEqual([
      { key: 'a1', value: 'a1', modificationTime: expect.any(String) },
      { key: 'a2', value: 'a2', modificationTime: expect.any(String) },
    ]);
    expect(pre.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
    const paged = await t.req('GET', `${p}?skip=1&limit=2`, { token: t.adminKey });
    expect(paged.body.map((i: { key: string }) => i.key)).toEqual(['a2', 'b1']);
    expect(paged.headers.get('vnd.tinkermode.range')).toBe('1-2/4');
  });

  it('answers an empty store with [] and range */0', async () => {
    const { device } = await seedDevice(t.deps);
    const r = await t.req('GET', `/devices/${device.id}/kv`, { token: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(r.headers.get('vnd.tinkermode.range')).toBe('*/0');
  });

  it('deletes a pair with 204, after which it is gone', async () => {
    await t.req('PUT', path('temp'), { token: t.adminKey, body: { value: 'x' } });
    const del = await t.req('DELETE', path('temp'), { token: deviceKey });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await t.req('GET', path('temp'), { token: t.adminKey })).status).toBe(404);
  });

  it('announces set and delete on the bus with a growing rev, for live subscribers (docs/devices.md#kv-sync)', async () => {
    const { device } = await seedDevice(t.deps);
    const seen: BusMessages['kv'][] = [];
    const off = t.deps.bus.subscribe('kv', (m) => m.ownerId === device.id && seen.push(m));
    try {
      await t.req('PUT', `/devices/${device.id}/kv/k1`, { token: t.adminKey, body: { value: 'v1' } });
      await t.req('DELETE', `/devices/${device.id}/kv/k1`, { token: t.adminKey });
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      off();
    }
    expect(seen).toEqual([
      { scope: 'device', ownerId: device.id, message: { action: 'set', rev: 1, key: 'k1', value: 'v1' } },
      { scope: 'device', ownerId: device.id, message: { action: 'delete', rev: 2, key: 'k1' } },
    ]);
  });

  it('records _deviceKVSaved_ and _deviceKVDeleted_ system events about the device (docs/devices.md#mqtt)', async () => {
    const home = await seedHome(t.deps);
    const { device } = await seedDevice(t.deps, { homeId: home.id });
    await t.req('PUT', `/devices/${device.id}/kv/ev`, { token: t.adminKey, body: { value: { on: true } } });
    await t.req('DELETE', `/devices/${device.id}/kv/ev`, { token: t.adminKey });
    const r = await t.req('GET', `/events?deviceId=${device.id}`, { token: t.adminKey });
    expect(r.body.map((e: { eventType: string }) => e.eventType)).toEqual(['_deviceKVDeleted_', '_deviceKVSaved_']);
    expect(r.body[1]).toMatchObject({
      eventData: { key: 'ev', value: { on: true } },
      originDeviceId: device.id,
      originDeviceClass: 'default',
      homeId: home.id,
    });
    expect(r.body[0].eventData).toEqual({ key: 'ev' });
  });
});
