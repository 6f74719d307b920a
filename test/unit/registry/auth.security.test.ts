// Sign-in never says which part was wrong; sessions belong to users; signed-out, expired and
// deleted-user tokens stop working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedProject, seedUser } from '../../helpers/seed.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';

describe('auth: security', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  runCommonRouteTests(() => t, { method: 'GET', path: () => '/userSession' });
  runCommonRouteTests(() => t, { method: 'DELETE', path: () => '/userSession' });

  it('answers a wrong password, an unknown email and the wrong project the same way', async () => {
    const u = await seedUser(t);
    const other = await seedProject(t);
    const answers = [];
    for (const body of [
      { projectId: 1, email: u.email, password: 'wrong password' },
      { projectId: 1, email: 'nobody@example.com', password: u.password },
      { projectId: other.projectId, email: u.email, password: u.password },
      { projectId: 999, email: u.email, password: u.password },
    ]) {
      const r = await t.req('POST', '/auth/user', { body });
      expect(r.status).toBe(401);
      answers.push(r.body);
    }
    for (const a of answers) expect(a).toEqual({ reason: 'AUTHORIZATION_REQUIRED', data: { message: 'invalid email or password' } });
  });

  it('keeps GET/DELETE /userSession for users: keys and devices get 403', async () => {
    const d = await seedDevice(t);
    for (const token of [t.adminKey, d.apiKey]) {
      for (const method of ['GET', 'DELETE']) {
        const r = await t.req(method, '/userSession', { token });
        expect(r.status).toBe(403);
        expect(r.body.reason).toBe('PERMISSION_DENIED');
      }
    }
  });

  it('refuses an expired session token', async () => {
    const u = await seedUser(t);
    const s = await t.deps.store.sessions.getByHash(hashToken(u.token));
    await t.deps.store.sessions.delete(s!.tokenHash);
    await t.deps.store.sessions.create({ ...s!, expirationTime: new Date(Date.now() - 1000).toISOString() });
    const r = await t.req('GET', '/auth', { token: u.token });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('ends the sessions of a deleted user', async () => {
    const u = await seedUser(t);
    expect((await t.req('DELETE', `/users/${u.userId}`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', '/auth', { token: u.token })).status).toBe(401);
  });

  it('stores only a hash of the session token', async () => {
    const u = await seedUser(t);
    expect(await t.deps.store.sessions.getByHash(u.token)).toBeUndefined();
    expect(await t.deps.store.sessions.getByHash(hashToken(u.token))).toBeDefined();
  });
});
