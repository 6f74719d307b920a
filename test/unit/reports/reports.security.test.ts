// Scheduled reports: a project key with scope `reports`, for its own project only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeReportApi } from './setup.js';
import type { TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';

let t: TestApi;
let reportId = '';
beforeAll(async () => {
  t = await makeReportApi();
  const r = await t.req('POST', '/scheduledReports', { token: t.adminKey, body: { name: 'r', kind: 'devices', schedule: { cron: '@daily' } } });
  reportId = r.body.id;
});
afterAll(() => t.close());

describe('scheduled reports: common auth cases', () => {
  runCommonRouteTests(() => t, { method: 'GET', path: () => '/scheduledReports' });
  runCommonRouteTests(() => t, { method: 'POST', path: () => '/scheduledReports', body: () => ({}) });
  runCommonRouteTests(() => t, { method: 'GET', path: () => `/scheduledReports/${reportId}` });
  runCommonRouteTests(() => t, { method: 'PATCH', path: () => `/scheduledReports/${reportId}`, body: () => ({}) });
  runCommonRouteTests(() => t, { method: 'DELETE', path: () => `/scheduledReports/${reportId}` });
  runCommonRouteTests(() => t, { method: 'POST', path: () => `/scheduledReports/${reportId}/run` });
  runCommonRouteTests(() => t, { method: 'GET', path: () => `/scheduledReports/${reportId}/runs` });
});

describe('scheduled reports: access', () => {
  it("another project's key sees none of this project's reports", async () => {
    const other = await seedProject(t.deps);
    expect((await t.req('GET', `/scheduledReports/${reportId}`, { token: other.adminKey })).status).toBe(404);
    expect((await t.req('POST', `/scheduledReports/${reportId}/run`, { token: other.adminKey })).status).toBe(404);
    expect((await t.req('DELETE', `/scheduledReports/${reportId}`, { token: other.adminKey })).status).toBe(404);
    expect((await t.req('GET', '/scheduledReports?projectId=1', { token: other.adminKey })).status).toBe(404);
    const list = await t.req('GET', '/scheduledReports', { token: other.adminKey });
    expect(list.body).toEqual([]);
    const created = await t.req('POST', '/scheduledReports', {
      token: other.adminKey,
      body: { projectId: 1, name: 'x', kind: 'devices', schedule: { cron: '@daily' } },
    });
    expect(created.status).toBe(404);
  });

  it('users, devices and keys without scope reports are refused', async () => {
    const home = await seedHome(t.deps);
    const { token: user } = await seedUser(t.deps, { homeId: home.id });
    const { key: device } = await seedDevice(t.deps, { homeId: home.id });
    const { key: kv } = await seedKey(t.deps, { scopes: ['kv', 'devices'] });
    for (const tok of [user, device, kv]) {
      expect((await t.req('GET', `/scheduledReports/${reportId}`, { token: tok })).status).toBe(403);
      expect((await t.req('POST', '/scheduledReports', { token: tok, body: { name: 'x', kind: 'devices', schedule: { cron: '@daily' } } })).status).toBe(403);
    }
    const { key: reports } = await seedKey(t.deps, { scopes: ['reports'] });
    expect((await t.req('GET', `/scheduledReports/${reportId}`, { token: reports })).status).toBe(200);
  });

  it('a webhook destination may not target a private address unless the operator allows it', async () => {
    t.deps.webhooks = { allowPrivateTargets: false };
    try {
      const res = await t.req('POST', '/scheduledReports', {
        token: t.adminKey,
        body: { name: 'x', kind: 'devices', schedule: { cron: '@daily' }, destination: { type: 'webhook', url: 'http://169.254.169.254/latest/meta-data' } },
      });
      expect(res.status).toBe(403);
      expect(res.body.data.issues[0].path).toBe('destination.url');
    } finally {
      t.deps.webhooks = { allowPrivateTargets: true };
    }
  });
});
