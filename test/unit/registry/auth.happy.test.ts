// GET /auth and user sessions (docs/api.md#credentials, docs/concepts.md).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedUser } from '../../helpers/seed.js';

describe('auth: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('says what each kind of credential acts as, and `nobody` without one', async () => {
    expect(await t.req('GET', '/auth')).toMatchObject({ status: 200, body: { type: 'nobody' } });
    const key = await t.req('GET', '/auth', { token: t.adminKey });
    expect(key.body).toEqual({ type: 'project key', projectId: 1, projectKeyId: expect.any(String), projectKeyName: 'admin' });
    const u = await seedUser(t);
    expect((await t.req('GET', '/auth', { token: u.token })).body).toEqual({ type: 'user', userId: u.userId, projectId: 1 });
    const d = await seedDevice(t);
    expect((await t.req('GET', '/auth', { headers: { authorization: `Bearer ${d.apiKey}` } })).body).toEqual({ type: 'device', deviceId: d.id, projectId: 1 });
  });

  it('signs a user in with a ut. token that expires after the session lifetime', async () => {
    const u = await seedUser(t);
    const before = Date.now();
    const r = await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email.toUpperCase(), password: u.password } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ userId: u.userId, token: expect.stringMatching(/^ut\./), expirationTime: expect.any(String) });
    const ttl = Date.parse(r.body.expirationTime) - before;
    expect(ttl).toBeGreaterThan(3600_000 - 5000);
    expect(ttl).toBeLessThan(3600_000 + 5000);
  });

  it('signs in with a form-encoded body too', async () => {
    const u = await seedUser(t);
    const r = await t.req('POST', '/auth/user', { form: { projectId: '1', email: u.email, password: u.password } });
    expect(r.status).toBe(200);
  });

  it("reads the caller's session", async () => {
    const u = await seedUser(t);
    const r = await t.req('GET', '/userSession', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ userId: u.userId, projectId: 1, creationTime: expect.any(String), expirationTime: expect.any(String) });
  });

  it('signs out: the token stops working and a revoke goes on the bus', async () => {
    const u = await seedUser(t);
    const revokes: unknown[] = [];
    onTestFinished(t.deps.bus.subscribe('revoke', (m) => revokes.push(m)));
    const r = await t.req('DELETE', '/userSession', { token: u.token });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(401);
    expect(revokes).toEqual([{ kind: 'session', tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
  });

  it('keeps two sessions of one user apart: signing out of one leaves the other', async () => {
    const u = await seedUser(t);
    const second = (await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).body.token;
    await t.req('DELETE', '/userSession', { token: u.token });
    expect((await t.req('GET', '/userSession', { token: second })).status).toBe(200);
  });
});
