// Users (docs/concepts.md): created and managed by project keys with `users`; a user reads and updates
// itself.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedHome, seedMember, seedUser } from '../../helpers/seed.js';

describe('users: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('creates a user with a normalized email and never shows the password hash', async () => {
    const r = await t.req('POST', '/users', {
      token: t.adminKey,
      body: { projectId: 1, email: '  Ada@Example.COM ', password: 'difference engine', name: 'Ada', canCreateDevices: true },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      projectId: 1,
      email: 'ada@example.com',
      name: 'Ada',
      canCreateDevices: true,
      verified: true,
      creationTime: expect.any(String),
    });
    const login = await t.req('POST', '/auth/user', { body: { projectId: 1, email: 'ADA@example.com', password: 'difference engine' } });
    expect(login.status).toBe(200);
  });

  it('lists, searches and pages users with the range header', async () => {
    for (const name of ['Grace Hopper', 'Alan Turing', 'Barbara Liskov']) {
      await t.req('POST', '/users', {
        token: t.adminKey,
        body: { projectId: 1, email: `${name.split(' ')[1].toLowerCase()}@example.com`, password: 'password1', name },
      });
    }
    const found = await t.req('GET', '/users?search=TURING', { token: t.adminKey });
    expect(found.status).toBe(200);
    expect(found.body.map((u: any) => u.name)).toEqual(['Alan Turing']);
    const page = await t.req('GET', '/users?projectId=1&skip=1&limit=2', { token: t.adminKey });
    expect(page.body).toHaveLength(2);
    expect(page.headers.get('vnd.tinkermode.range')).toMatch(/^1-2\/\d+$/);
    expect(JSON.stringify(page.body)).not.toContain('passwordHash');
    expect(JSON.stringify(page.body)).not.toContain('scrypt');
  });

  it('lets a user read and rename itself, and a key change canCreateDevices', async () => {
    const u = await seedUser(t);
    const me = await t.req('GET', `/users/${u.userId}`, { token: u.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: u.userId, email: u.email, canCreateDevices: false });
    const renamed = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { ...me.body, name: 'Renamed' } });
    // docs/concepts.md#accounts: PATCH answers 204 as MODE's does; the change reads back
    expect(renamed.status).toBe(204);
    expect(renamed.body).toBeUndefined();
    expect((await t.req('GET', `/users/${u.userId}`, { token: u.token })).body.name).toBe('Renamed');
    const granted = await t.req('PATCH', `/users/${u.userId}`, { token: t.adminKey, body: { canCreateDevices: true } });
    expect(granted.status).toBe(204);
    expect((await t.req('GET', `/users/${u.userId}`, { token: u.token })).body.canCreateDevices).toBe(true);
    expect((await t.req('GET', '/auth', { token: u.token })).status).toBe(200);
  });

  it('changes a password: the old one stops working and other sessions end', async () => {
    const u = await seedUser(t);
    const other = (await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).body.token;
    const revokes: unknown[] = [];
    onTestFinished(t.deps.bus.subscribe('revoke', (m) => revokes.push(m)));
    const r = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { password: 'brand new secret', currentPassword: u.password } });
    expect(r.status).toBe(204);
    expect((await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).status).toBe(401);
    expect((await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: 'brand new secret' } })).status).toBe(200);
    expect((await t.req('GET', '/auth', { token: u.token })).status).toBe(200);
    expect((await t.req('GET', '/auth', { token: other })).status).toBe(401);
    expect(revokes).toHaveLength(1);
  });

  it('deletes a user with its sessions and memberships, revoking the sessions on the bus', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const u = await seedUser(t);
    await seedMember(t, owner.token, homeId, u.userId);
    const revokes: unknown[] = [];
    onTestFinished(t.deps.bus.subscribe('revoke', (m) => revokes.push(m)));
    const r = await t.req('DELETE', `/users/${u.userId}`, { token: t.adminKey });
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/users/${u.userId}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.req('GET', `/homes/${homeId}/members`, { token: owner.token })).body.map((m: any) => m.userId)).toEqual([owner.userId]);
    expect(await t.deps.store.sessions.listForUser(u.userId)).toEqual([]);
    expect(revokes).toEqual([{ kind: 'session', tokenHash: expect.any(String) }]);
  });
});
