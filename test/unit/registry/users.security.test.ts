// Users are visible to project keys with `users` and to themselves only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedKey, seedProject, seedUser, type SeededUser } from '../../helpers/seed.js';

describe('users: security', () => {
  let t: TestApi;
  let other: { projectId: number; key: string };
  let victim: SeededUser;
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t);
    victim = await seedUser(t);
  });
  afterAll(() => t.close());

  for (const [method, path, body] of [
    ['GET', '/users'],
    // a project that does not exist: without a credential, POST /users is self-signup (docs/concepts.md),
    // which needs a project that allows it
    ['POST', '/users', { projectId: 999, email: 'a@b.co', password: 'long enough', name: 'A' }],
    ['GET', '/users/1'],
    ['PATCH', '/users/1', { name: 'x' }],
    ['DELETE', '/users/1'],
  ] as [string, string, unknown?][]) {
    runCommonRouteTests(() => t, { method, path: () => path, body: body ? () => body : undefined });
  }

  it("hides project 1's users from another project's key", async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const r = await t.req(method, `/users/${victim.userId}`, { token: other.key, body: method === 'PATCH' ? { name: 'pwned' } : undefined });
      expect(r.status).toBe(404);
      expect(r.body.reason).toBe('USER_NOT_FOUND');
    }
    expect((await t.req('GET', '/users?projectId=1', { token: other.key })).body.reason).toBe('PERMISSION_DENIED');
    expect(JSON.stringify((await t.req('GET', '/users', { token: other.key })).body)).not.toContain(victim.email);
    const create = await t.req('POST', '/users', { token: other.key, body: { projectId: 1, email: 'sneak@example.com', password: 'long enough', name: 'S' } });
    expect(create.status).toBe(403);
    expect(create.body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', `/users/${victim.userId}`, { token: victim.token })).body.name).not.toBe('pwned');
  });

  it('hides other users from a user, and refuses it the list and user creation', async () => {
    const u = await seedUser(t);
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const r = await t.req(method, `/users/${victim.userId}`, { token: u.token, body: method === 'PATCH' ? { name: 'pwned' } : undefined });
      expect(r.status).toBe(404);
      expect(r.body.reason).toBe('USER_NOT_FOUND');
    }
    expect((await t.req('GET', '/users', { token: u.token })).body.reason).toBe('PERMISSION_DENIED');
    expect(
      (await t.req('POST', '/users', { token: u.token, body: { projectId: 1, email: 'n@example.com', password: 'long enough', name: 'N' } })).body.reason,
    ).toBe('PERMISSION_DENIED');
  });

  it('does not let a user grant itself canCreateDevices, forge read-only fields or delete itself', async () => {
    const u = await seedUser(t);
    const grant = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { canCreateDevices: true } });
    expect(grant.status).toBe(403);
    expect(grant.body).toEqual({ reason: 'READ_ONLY_FIELD', data: { fields: ['canCreateDevices'] } });
    const forged = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { id: 1, projectId: other.projectId } });
    expect(forged.body).toEqual({ reason: 'READ_ONLY_FIELD', data: { fields: ['id', 'projectId'] } });
    const del = await t.req('DELETE', `/users/${u.userId}`, { token: u.token });
    expect(del.status).toBe(403);
    expect(del.body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', `/users/${u.userId}`, { token: t.adminKey })).body.canCreateDevices).toBe(false);
  });

  it('refuses a wrong currentPassword when a user changes its own password (docs/concepts.md#accounts)', async () => {
    const u = await seedUser(t);
    const r = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { password: 'hijacked password', currentPassword: 'guess guess' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      reason: 'INVALID_PARAMETERS',
      data: { issues: [{ path: 'currentPassword', message: expect.stringContaining('currentPassword') }] },
    });
    expect((await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).status).toBe(200);
  });

  it('requires the users scope of a project key, and refuses devices', async () => {
    const { key } = await seedKey(t, 1, ['devices', 'homes']);
    const d = await seedDevice(t);
    for (const token of [key, d.apiKey]) {
      for (const [method, path] of [
        ['GET', '/users'],
        ['GET', `/users/${victim.userId}`],
        ['DELETE', `/users/${victim.userId}`],
      ]) {
        const r = await t.req(method, path, { token });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.reason).toBe('PERMISSION_DENIED');
      }
    }
  });
});
