// Home key-value store: who may call, and the errors it shares with the device store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import type { SpecOperation } from '../../../src/protocol/spec-statuses.js';

describe('home key-value store: security and errors', () => {
  let t: TestApi;
  let homeId: number;
  let deviceKey: string;
  let outsiderToken: string;
  let outsideDeviceKey: string;
  let otherProjectKey: string;
  let homesOnlyKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    ({ id: homeId } = await seedHome(t.deps));
    ({ key: deviceKey } = await seedDevice(t.deps, { homeId }));
    await t.req('PUT', `/homes/${homeId}/kv/secret`, { token: t.adminKey, body: { value: 'hidden' } });
    const other = await seedHome(t.deps);
    ({ token: outsiderToken } = await seedUser(t.deps, { homeId: other.id, role: 'owner' }));
    ({ key: outsideDeviceKey } = await seedDevice(t.deps, { homeId: other.id }));
    ({ adminKey: otherProjectKey } = await seedProject(t.deps));
    ({ key: homesOnlyKey } = await seedKey(t.deps, { scopes: ['homes', 'devices'] }));
  });
  afterAll(() => t.close());

  const routes: { method: string; spec: SpecOperation; path: () => string; body?: () => unknown; success: number }[] = [
    { method: 'GET', spec: 'getKeyValuePairsReceiveUpdates', path: () => `/homes/${homeId}/kv`, success: 200 },
    { method: 'GET', spec: 'lookUpKeyValuePair', path: () => `/homes/${homeId}/kv/secret`, success: 200 },
    { method: 'PUT', spec: 'createUpdateKeyValuePair', path: () => `/homes/${homeId}/kv/secret`, body: () => ({ value: 'x' }), success: 204 },
    { method: 'DELETE', spec: 'deleteKeyValuePair', path: () => `/homes/${homeId}/kv/secret`, success: 204 },
  ];
  for (const route of routes) runCommonRouteTests(() => t, route);

  const strangers: [string, () => string][] = [
    ['a user of another home (even its owner)', () => outsiderToken],
    ['a device of another home', () => outsideDeviceKey],
    ["another project's admin key", () => otherProjectKey],
  ];
  for (const [who, token] of strangers) {
    it(`reports the home as missing to ${who} and changes nothing`, async () => {
      for (const route of routes) {
        const r = await t.req(route.method, route.path(), { token: token(), body: route.body?.() });
        expect(r.body.reason, route.spec).toBe('HOME_NOT_FOUND');
        expectSpecStatus(route.spec, r.status, route.success);
      }
      expect((await t.req('GET', `/homes/${homeId}/kv/secret`, { token: t.adminKey })).body.value).toBe('hidden');
    });
  }

  it('refuses writes from a device in the home with 403 PERMISSION_DENIED', async () => {
    for (const route of routes.filter((r) => r.method !== 'GET')) {
      const r = await t.req(route.method, route.path(), { token: deviceKey, body: route.body?.() });
      expect(r.status, route.spec).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
    expect((await t.req('GET', `/homes/${homeId}/kv/secret`, { token: t.adminKey })).body.value).toBe('hidden');
  });

  it('stops letting a device read once it has left the home', async () => {
    const { device, key } = await seedDevice(t.deps, { homeId });
    expect((await t.req('GET', `/homes/${homeId}/kv`, { token: key })).status).toBe(200);
    await t.deps.store.devices.update(device.id, { homeId: null });
    expect((await t.req('GET', `/homes/${homeId}/kv/secret`, { token: key })).status).toBe(404);
  });

  it('refuses a project key without the kv scope with 403 PERMISSION_DENIED', async () => {
    for (const route of routes) {
      const r = await t.req(route.method, route.path(), { token: homesOnlyKey, body: route.body?.() });
      expect(r.status, route.spec).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
  });

  it('answers a home id that is not a positive integer as HOME_NOT_FOUND', async () => {
    const r = await t.req('GET', '/homes/abc/kv/k', { token: t.adminKey });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('HOME_NOT_FOUND');
  });

  it('refuses an invalid key in the path, and answers 404 KEY_NOT_FOUND / 409 KEY_IN_USE like the device store', async () => {
    const bad = await t.req('PUT', `/homes/${homeId}/kv/${'k'.repeat(257)}`, { token: t.adminKey, body: { value: 1 } });
    expect(bad.status).toBe(403);
    expect(bad.body.reason).toBe('INVALID_PARAMETERS');
    expect((await t.req('DELETE', `/homes/${homeId}/kv/none`, { token: t.adminKey })).body.reason).toBe('KEY_NOT_FOUND');
    const { setKv, homeStore } = await import('../../../src/domain/kv/index.js');
    await setKv({ deps: t.deps, input: { target: homeStore({ id: homeId, projectId: 1 }), key: 'sys:held', value: 1, asService: true } });
    const held = await t.req('DELETE', `/homes/${homeId}/kv/sys:held`, { token: t.adminKey });
    expect(held.status).toBe(409);
    expect(held.body.reason).toBe('KEY_IN_USE');
  });
});
