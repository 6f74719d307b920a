// Bundles stay in their project; devices read only their own class's; only keys manage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedBundle, seedDevice, seedKey, seedProject, seedUser } from '../../helpers/seed.js';

describe('bundles: security', () => {
  let t: TestApi;
  let other: { projectId: number; key: string };
  let bundleId: string;
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t);
    bundleId = await seedBundle(t);
  });
  afterAll(() => t.close());

  for (const [method, path, body] of [
    ['GET', '/bundles'],
    ['POST', '/bundles', { id: 'x', projectId: 1, deviceClass: 'default', components: [] }],
    ['GET', '/bundles/x'],
    ['DELETE', '/bundles/x'],
  ] as [string, string, unknown?][]) {
    runCommonRouteTests(() => t, { method, path: () => path, body: body ? () => body : undefined });
  }

  it("hides a bundle from another project's key and its devices", async () => {
    const foreignDevice = await seedDevice(t, { key: other.key, projectId: other.projectId });
    for (const token of [other.key, foreignDevice.apiKey]) {
      const r = await t.req('GET', `/bundles/${bundleId}`, { token });
      expect(r.status).toBe(404);
      expect(r.body.reason).toBe('BUNDLE_NOT_FOUND');
      expect(JSON.stringify((await t.req('GET', '/bundles', { token })).body)).not.toContain(bundleId);
    }
    expect((await t.req('DELETE', `/bundles/${bundleId}`, { token: other.key })).status).toBe(404);
    expect((await t.req('GET', '/bundles?projectId=1', { token: other.key })).body.reason).toBe('PERMISSION_DENIED');
    const into = await t.req('POST', '/bundles', { token: other.key, body: { id: 'sneaky', projectId: 1, deviceClass: 'default', components: [] } });
    expect(into.body.reason).toBe('PERMISSION_DENIED');
    // nor may a device of another project record it as installed
    const rec = await t.req('PUT', `/devices/${foreignDevice.id}/bundle`, { token: foreignDevice.apiKey, body: { bundleId } });
    expect(rec.status).toBe(404);
    expect(rec.body.reason).toBe('BUNDLE_NOT_FOUND');
  });

  it('hides a bundle of another class from a device', async () => {
    await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'cam' } });
    const camBundle = await seedBundle(t, { deviceClass: 'cam' });
    const d = await seedDevice(t);
    expect((await t.req('GET', `/bundles/${camBundle}`, { token: d.apiKey })).status).toBe(404);
  });

  it('lets only project keys with devices create and delete bundles', async () => {
    const d = await seedDevice(t);
    const u = await seedUser(t);
    const { key } = await seedKey(t, 1, ['users']);
    for (const token of [d.apiKey, u.token, key]) {
      const c = await t.req('POST', '/bundles', { token, body: { id: 'nope', projectId: 1, deviceClass: 'default', components: [] } });
      expect(c.status).toBe(403);
      expect(c.body.reason).toBe('PERMISSION_DENIED');
    }
    for (const token of [d.apiKey, key]) {
      const del = await t.req('DELETE', `/bundles/${bundleId}`, { token });
      expect(del.status).toBe(403);
      expect(del.body.reason).toBe('PERMISSION_DENIED');
    }
    expect((await t.req('GET', '/bundles', { token: u.token })).body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', `/bundles/${bundleId}`, { token: t.adminKey })).status).toBe(200);
  });
});
