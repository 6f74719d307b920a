// A project and its settings (docs/concepts.md): `allowUserSignup` decides whether POST /users without a
// credential (self-signup, as MODE's app library does) is allowed. Any key of the project reads
// it; only a key with scope admin changes it; other projects are not revealed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedKey, seedProject, seedUser } from '../../helpers/seed.js';

describe('project settings and self-signup', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  runCommonRouteTests(() => t, { method: 'GET', path: () => '/projects/1' });
  runCommonRouteTests(() => t, { method: 'PATCH', path: () => '/projects/1', body: () => ({ allowUserSignup: false }) });

  const signup = (projectId: number, extra: Record<string, unknown> = {}) =>
    t.req('POST', '/users', {
      body: { projectId, email: `s-${Math.random().toString(36).slice(2)}@example.com`, password: 'long enough pw', name: 'S', ...extra },
    });

  it('reads the project with allowUserSignup (default true) with any key of it', async () => {
    const { key } = await seedKey(t, 1, ['devices']);
    const r = await t.req('GET', '/projects/1', { token: key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: 1,
      name: expect.any(String),
      allowUserSignup: true,
      verifyEmails: false,
      commandActions: 'spec',
      creationTime: expect.any(String),
    });
  });

  it('turns self-signup off and on with an admin key; other keys and users are refused', async () => {
    const { key: devicesKey } = await seedKey(t, 1, ['devices']);
    expect((await t.req('PATCH', '/projects/1', { token: devicesKey, body: { allowUserSignup: false } })).body.reason).toBe('PERMISSION_DENIED');
    const u = await seedUser(t);
    expect((await t.req('PATCH', '/projects/1', { token: u.token, body: { allowUserSignup: false } })).status).toBe(403);
    expect((await signup(1)).status).toBe(201);
    const off = await t.req('PATCH', '/projects/1', { token: t.adminKey, body: { allowUserSignup: false } });
    expect(off.status).toBe(200);
    expect(off.body.allowUserSignup).toBe(false);
    const refused = await signup(1);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe('AUTHORIZATION_REQUIRED');
    // a project key still creates users
    expect(
      (await t.req('POST', '/users', { token: t.adminKey, body: { projectId: 1, email: 'by-key@example.com', password: 'long enough pw', name: 'K' } })).status,
    ).toBe(201);
    expect((await t.req('PATCH', '/projects/1', { token: t.adminKey, body: { allowUserSignup: true } })).body.allowUserSignup).toBe(true);
    expect((await signup(1)).status).toBe(201);
    const bad = await t.req('PATCH', '/projects/1', { token: t.adminKey, body: { allowUserSignup: 'maybe' } });
    expect(bad.status).toBe(403);
    expect(bad.body.reason).toBe('INVALID_PARAMETERS');
  });

  it("never reveals another project's settings", async () => {
    const other = await seedProject(t);
    for (const method of ['GET', 'PATCH']) {
      const r = await t.req(method, `/projects/${other.projectId}`, { token: t.adminKey, body: method === 'PATCH' ? { allowUserSignup: false } : undefined });
      expect(r.status).toBe(404);
      expect(r.body.reason).toBe('PROJECT_NOT_FOUND');
    }
    expect((await t.req('GET', `/projects/${other.projectId}`, { token: other.key })).body.allowUserSignup).toBe(true);
  });

  it('refuses canCreateDevices in a signup (403 PERMISSION_DENIED) and signups to unknown projects (401)', async () => {
    const r = await signup(1, { canCreateDevices: true });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
    expect((await signup(424242)).status).toBe(401);
    // a signed-up user signs in
    const email = 'signed-up@example.com';
    expect((await t.req('POST', '/users', { body: { projectId: 1, email, password: 'long enough pw', name: 'S' } })).status).toBe(201);
    expect((await t.req('POST', '/auth/user', { body: { projectId: 1, email, password: 'long enough pw' } })).status).toBe(200);
    // a user token is not a signup: users still may not create users
    const u = await seedUser(t);
    expect(
      (await t.req('POST', '/users', { token: u.token, body: { projectId: 1, email: 'x@example.com', password: 'long enough pw', name: 'X' } })).body.reason,
    ).toBe('PERMISSION_DENIED');
  });
});
