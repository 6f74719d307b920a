// Home key-value store (docs/concepts.md: same rules as device KV), the paths that succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedKey, seedUser } from '../../helpers/store-seed.js';
import type { BusMessages } from '../../../src/ports/bus.js';

describe('home key-value store: happy paths', () => {
  let t: TestApi;
  let homeId: number;
  let memberToken: string;
  let ownerToken: string;
  let kvKey: string;
  let deviceKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    ({ id: homeId } = await seedHome(t.deps));
    ({ token: memberToken } = await seedUser(t.deps, { homeId, role: 'member' }));
    ({ token: ownerToken } = await seedUser(t.deps, { homeId, role: 'owner' }));
    ({ key: kvKey } = await seedKey(t.deps, { scopes: ['kv'] }));
    ({ key: deviceKey } = await seedDevice(t.deps, { homeId }));
  });
  afterAll(() => t.close());

  const path = (key = '') => `/homes/${homeId}/kv${key ? '/' + key : ''}`;

  it('stores, reads, lists and deletes a pair with the same codes as the device store', async () => {
    expect((await t.req('PUT', path('mode'), { token: t.adminKey, body: { value: 'away' } })).status).toBe(204);
    const get = await t.req('GET', path('mode'), { token: t.adminKey });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ key: 'mode', value: 'away', modificationTime: expect.any(String) });
    const list = await t.req('GET', path(), { token: t.adminKey });
    expect(list.body).toEqual([get.body]);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-0/1');
    expect((await t.req('DELETE', path('mode'), { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', path('mode'), { token: t.adminKey })).status).toBe(404);
  });

  it('lets members, owners and a project key with scope kv read and write', async () => {
    for (const [who, token] of [
      ['member', memberToken],
      ['owner', ownerToken],
      ['kvkey', kvKey],
    ] as const) {
      expect((await t.req('PUT', path(who), { token, body: { value: who } })).status, who).toBe(204);
      expect((await t.req('GET', path(who), { token })).body.value, who).toBe(who);
      expect((await t.req('DELETE', path(who), { token })).status, who).toBe(204);
    }
  });

  it('lets a device in the home read the home store (our rule: read-only for devices)', async () => {
    await t.req('PUT', path('shared'), { token: memberToken, body: { value: { tz: 'Europe/Paris' } } });
    expect((await t.req('GET', path('shared'), { token: deviceKey })).body.value).toEqual({ tz: 'Europe/Paris' });
    const list = await t.req('GET', `${path()}?keyPrefix=sha`, { token: deviceKey });
    expect(list.status).toBe(200);
    expect(list.body.map((i: { key: string }) => i.key)).toEqual(['shared']);
  });

  it('keeps the home store apart from the stores of its devices', async () => {
    const { device } = await seedDevice(t.deps, { homeId });
    await t.req('PUT', path('same'), { token: t.adminKey, body: { value: 'home' } });
    await t.req('PUT', `/devices/${device.id}/kv/same`, { token: t.adminKey, body: { value: 'device' } });
    expect((await t.req('GET', path('same'), { token: t.adminKey })).body.value).toBe('home');
    expect((await t.req('GET', `/devices/${device.id}/kv/same`, { token: t.adminKey })).body.value).toBe('device');
  });

  it('announces home changes on the bus and records _keyValueSaved_ / _keyValueDeleted_ events with the homeId', async () => {
    const home = await seedHome(t.deps);
    const seen: BusMessages['kv'][] = [];
    const off = t.deps.bus.subscribe('kv', (m) => m.scope === 'home' && m.ownerId === home.id && seen.push(m));
    try {
      await t.req('PUT', `/homes/${home.id}/kv/h1`, { token: t.adminKey, body: { value: 5 } });
      await t.req('DELETE', `/homes/${home.id}/kv/h1`, { token: t.adminKey });
    } finally {
      off();
    }
    expect(seen.map((m) => m.message)).toEqual([
      { action: 'set', rev: 1, key: 'h1', value: 5 },
      { action: 'delete', rev: 2, key: 'h1' },
    ]);
    const ev = await t.req('GET', `/events?homeId=${home.id}`, { token: t.adminKey });
    expect(ev.body).toEqual([
      { eventType: '_keyValueDeleted_', eventData: { key: 'h1' }, timestamp: expect.any(String), homeId: home.id },
      { eventType: '_keyValueSaved_', eventData: { key: 'h1', value: 5 }, timestamp: expect.any(String), homeId: home.id },
    ]);
  });
});
