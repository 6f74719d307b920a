// Device key-value store: who may call. An object the caller may not see is reported as missing
// (docs/api.md#credentials); createUpdateKeyValuePair has no 401 and no 429 in its documented list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import type { SpecOperation } from '../../../src/protocol/spec-statuses.js';

describe('device key-value store: security', () => {
  let t: TestApi;
  let deviceId: number;
  let otherDeviceKey: string;
  let outsiderToken: string;
  let otherProjectKey: string;
  let devicesOnlyKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    const home = await seedHome(t.deps);
    ({
      device: { id: deviceId },
    } = await seedDevice(t.deps, { homeId: home.id }));
    await t.req('PUT', `/devices/${deviceId}/kv/secret`, { token: t.adminKey, body: { value: 'hidden' } });
    ({ key: otherDeviceKey } = await seedDevice(t.deps, { homeId: home.id }));
    const otherHome = await seedHome(t.deps);
    ({ token: outsiderToken } = await seedUser(t.deps, { homeId: otherHome.id }));
    ({ adminKey: otherProjectKey } = await seedProject(t.deps));
    ({ key: devicesOnlyKey } = await seedKey(t.deps, { scopes: ['devices', 'logs'] }));
  });
  afterAll(() => t.close());

  const routes: { method: string; spec: SpecOperation; path: () => string; body?: () => unknown; success: number }[] = [
    { method: 'GET', spec: 'getKeyValuePairsReceiveUpdates', path: () => `/devices/${deviceId}/kv`, success: 200 },
    { method: 'GET', spec: 'lookUpKeyValuePair', path: () => `/devices/${deviceId}/kv/secret`, success: 200 },
    { method: 'PUT', spec: 'createUpdateKeyValuePair', path: () => `/devices/${deviceId}/kv/secret`, body: () => ({ value: 'x' }), success: 204 },
    { method: 'DELETE', spec: 'deleteKeyValuePair', path: () => `/devices/${deviceId}/kv/secret`, success: 204 },
  ];
  for (const route of routes) runCommonRouteTests(() => t, route);

  it('answers createUpdateKeyValuePair without a credential with 403, never 401 (its documented list has no 401)', async () => {
    const r = await t.req('PUT', `/devices/${deviceId}/kv/x`, { body: { value: 1 } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('AUTHORIZATION_REQUIRED');
  });

  const strangers: [string, () => string][] = [
    ['another device of the same home', () => otherDeviceKey],
    ['a user who is not a member of the device home', () => outsiderToken],
    ["another project's admin key", () => otherProjectKey],
  ];
  for (const [who, token] of strangers) {
    it(`reports the device as missing to ${who}, on every KV operation, and changes nothing`, async () => {
      for (const route of routes) {
        const r = await t.req(route.method, route.path(), { token: token(), body: route.body?.() });
        expect(r.body.reason, `${route.method} ${route.spec}`).toBe('DEVICE_NOT_FOUND');
        expectSpecStatus(route.spec, r.status, route.success);
        expect(JSON.stringify(r.body)).not.toContain('hidden');
      }
      expect((await t.req('GET', `/devices/${deviceId}/kv/secret`, { token: t.adminKey })).body.value).toBe('hidden');
    });
  }

  it('refuses a project key without the kv scope with 403 PERMISSION_DENIED', async () => {
    for (const route of routes) {
      const r = await t.req(route.method, route.path(), { token: devicesOnlyKey, body: route.body?.() });
      expect(r.status, route.spec).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
  });

  it('stops answering a device whose key was replaced (revocation takes effect at once)', async () => {
    const { device, key } = await seedDevice(t.deps);
    expect((await t.req('GET', `/devices/${device.id}/kv`, { token: key })).status).toBe(200);
    await t.deps.store.devices.update(device.id, { apiKeyHash: 'revoked' });
    const r = await t.req('GET', `/devices/${device.id}/kv`, { token: key });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('stops answering a member removed from the home', async () => {
    const home = await seedHome(t.deps);
    const { device } = await seedDevice(t.deps, { homeId: home.id });
    const { user, token } = await seedUser(t.deps, { homeId: home.id });
    expect((await t.req('GET', `/devices/${device.id}/kv`, { token })).status).toBe(200);
    await t.deps.store.members.delete(home.id, user.id);
    expect((await t.req('GET', `/devices/${device.id}/kv`, { token })).body.reason).toBe('DEVICE_NOT_FOUND');
  });

  it('reads the key from the path only: a key in the body or query does not change which pair is written', async () => {
    const r = await t.req('PUT', `/devices/${deviceId}/kv/pathKey?key=queryKey`, { token: t.adminKey, body: { key: 'bodyKey', value: 'v' } });
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/devices/${deviceId}/kv/pathKey`, { token: t.adminKey })).body.value).toBe('v');
    expect((await t.req('GET', `/devices/${deviceId}/kv/bodyKey`, { token: t.adminKey })).status).toBe(404);
  });

  it('answers a long key built to make a backtracking pattern explode quickly (no ReDoS)', async () => {
    const started = Date.now();
    const r = await t.req('GET', `/devices/${deviceId}/kv/${'a-'.repeat(2000)}!`, { token: t.adminKey });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    // a catastrophic (exponential or cubic) backtrack on 4,000 characters takes minutes: a loose
    // bound still catches it, and holds for a request on a machine busy with other work
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
