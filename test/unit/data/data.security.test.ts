// Data posts and data sources: who may post for a device, who may manage sources, and the
// webhook target policy (docs/webhooks.md "Targets") applied to webhook sources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';

let t: TestApi;
let deviceId = 0;
beforeAll(async () => {
  t = await makeTestApi();
  deviceId = (await seedDevice(t.deps)).device.id;
});
afterAll(() => t.close());

describe('data: common auth cases', () => {
  runCommonRouteTests(() => t, { method: 'POST', path: () => `/devices/${deviceId}/data`, spec: 'postData', body: () => ({ data: [{}] }) });
  runCommonRouteTests(() => t, { method: 'GET', path: () => '/projects/1/dataSources' });
  runCommonRouteTests(() => t, { method: 'POST', path: () => '/projects/1/dataSources', body: () => ({ name: 'x', type: 'store' }) });
  runCommonRouteTests(() => t, { method: 'GET', path: () => '/projects/1/dataSources/x/records' });
});

describe('data: access', () => {
  it('a device posts only for itself; another project cannot post for it (403, the list has no 404)', async () => {
    const { device: a } = await seedDevice(t.deps);
    const { key: bKey } = await seedDevice(t.deps);
    const other = await seedProject(t.deps);
    expect((await t.req('POST', `/devices/${a.id}/data`, { token: bKey, body: { data: [{}] } })).status).toBe(403);
    expect((await t.req('POST', `/devices/${a.id}/data`, { token: other.adminKey, body: { data: [{}] } })).status).toBe(403);
  });

  it('a home member, a key without scope data, and another project may not manage sources or read records', async () => {
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'private', name: 'p', type: 'store' } });
    const home = await seedHome(t.deps);
    const { token: member } = await seedUser(t.deps, { homeId: home.id });
    const { key: kvOnly } = await seedKey(t.deps, { scopes: ['kv'] });
    const other = await seedProject(t.deps);
    for (const tok of [member, kvOnly]) {
      expect((await t.req('GET', '/projects/1/dataSources', { token: tok })).status).toBe(403);
      expect((await t.req('GET', '/projects/1/dataSources/private/records', { token: tok })).status).toBe(403);
    }
    const foreign = await t.req('GET', '/projects/1/dataSources/private', { token: other.adminKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.reason).toBe('PROJECT_NOT_FOUND');
    const { key: dataKey } = await seedKey(t.deps, { scopes: ['data'] });
    expect((await t.req('GET', '/projects/1/dataSources/private/records', { token: dataKey })).status).toBe(200);
  });

  it('a webhook source may not target a private address unless the operator allows it', async () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest']) {
      const res = await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { name: 'x', type: 'webhook', url } });
      expect(res.status, url).toBe(403);
      expect(res.body.data.issues[0].path).toBe('url');
    }
  });
});
