// Keys and classes stay inside their project; managing keys needs `admin`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedKey, seedProject, seedUser } from '../../helpers/seed.js';

describe('projects: security', () => {
  let t: TestApi;
  let other: { projectId: number; key: string };
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t);
  });
  afterAll(() => t.close());

  for (const [method, path, body] of [
    ['GET', '/projects/1/apiKeys'],
    ['POST', '/projects/1/apiKeys', { name: 'x', scopes: ['admin'] }],
    ['DELETE', '/projects/1/apiKeys/x'],
    ['GET', '/projects/1/deviceClasses'],
    ['POST', '/projects/1/deviceClasses', { id: 'x' }],
    ['GET', '/projects/1/deviceClasses/default'],
    ['DELETE', '/projects/1/deviceClasses/default'],
  ] as [string, string, unknown?][]) {
    runCommonRouteTests(() => t, { method, path: () => path, body: body ? () => body : undefined });
  }

  it("answers another project's keys and classes as a missing project", async () => {
    const mine = (await t.req('GET', '/projects/1/apiKeys', { token: t.adminKey })).body[0];
    for (const [method, path, body] of [
      ['GET', '/projects/1/apiKeys'],
      ['POST', '/projects/1/apiKeys', { name: 'x', scopes: ['admin'] }],
      ['DELETE', `/projects/1/apiKeys/${mine.id}`],
      ['GET', '/projects/1/deviceClasses'],
      ['POST', '/projects/1/deviceClasses', { id: 'x' }],
      ['GET', '/projects/1/deviceClasses/default'],
      ['DELETE', '/projects/1/deviceClasses/default'],
    ] as [string, string, unknown?][]) {
      const r = await t.req(method, path, { token: other.key, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.reason).toBe('PROJECT_NOT_FOUND');
    }
    expect((await t.req('GET', '/auth', { token: t.adminKey })).status).toBe(200);
  });

  it("does not let a project revoke another project's key through its own path", async () => {
    const victim = await seedKey(t, 1, ['devices']);
    const r = await t.req('DELETE', `/projects/${other.projectId}/apiKeys/${victim.keyId}`, { token: other.key });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('KEY_NOT_FOUND');
    expect((await t.req('GET', '/auth', { token: victim.key })).status).toBe(200);
  });

  it('requires the admin scope to manage keys, and devices to manage classes', async () => {
    const { key } = await seedKey(t, 1, ['devices', 'users', 'homes', 'kv', 'logs']);
    for (const [method, path, body] of [
      ['GET', '/projects/1/apiKeys'],
      ['POST', '/projects/1/apiKeys', { name: 'escalate', scopes: ['admin'] }],
    ] as [string, string, unknown?][]) {
      const r = await t.req(method, path, { token: key, body });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
    const { key: noDevices } = await seedKey(t, 1, ['users']);
    const c = await t.req('POST', '/projects/1/deviceClasses', { token: noDevices, body: { id: 'x' } });
    expect(c.status).toBe(403);
    expect(c.body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('POST', '/projects/1/deviceClasses', { token: key, body: { id: 'by-devices-key' } })).status).toBe(201);
  });

  it('lets users read classes but not change them, and devices neither', async () => {
    const u = await seedUser(t);
    const d = await seedDevice(t);
    const create = await t.req('POST', '/projects/1/deviceClasses', { token: u.token, body: { id: 'x' } });
    expect(create.body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('DELETE', '/projects/1/deviceClasses/default', { token: u.token })).body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', '/projects/1/apiKeys', { token: u.token })).body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', '/projects/1/deviceClasses', { token: d.apiKey })).body.reason).toBe('PERMISSION_DENIED');
  });

  it('refuses a revoked key with 401', async () => {
    const k = await seedKey(t, 1, ['admin']);
    expect((await t.req('DELETE', `/projects/1/apiKeys/${k.keyId}`, { token: k.key })).status).toBe(204);
    const r = await t.req('GET', '/projects/1/apiKeys', { token: k.key });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('stores only the hash of a created key', async () => {
    const created = (await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body: { name: 'h', scopes: ['kv'] } })).body;
    const row = await t.deps.store.apiKeys.get(created.id);
    expect(row!.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.key);
  });
});
