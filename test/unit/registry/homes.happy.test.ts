// Homes, members and provisioning tokens (docs/concepts.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedMember, seedUser } from '../../helpers/seed.js';

describe('homes: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('makes the user who creates a home its owner', async () => {
    const u = await seedUser(t);
    const r = await t.req('POST', '/homes', { token: u.token, body: { name: ' Cabin ' } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), projectId: 1, name: 'Cabin', creationTime: expect.any(String) });
    const members = await t.req('GET', `/homes/${r.body.id}/members`, { token: u.token });
    expect(members.body).toEqual([
      { homeId: r.body.id, userId: u.userId, name: 'Test User', email: u.email, verified: true, role: 'owner', creationTime: expect.any(String) },
    ]);
  });

  it('lets a project key create a home in its project, with no members', async () => {
    const r = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'Office', projectId: 1 } });
    expect(r.status).toBe(201);
    expect((await t.req('GET', `/homes/${r.body.id}/members`, { token: t.adminKey })).body).toEqual([]);
  });

  it("lists a user's homes for the user, and any user's for a key", async () => {
    const u = await seedUser(t);
    const a = await seedHome(t, u.token, 'A');
    const b = await seedHome(t, u.token, 'B');
    const mine = await t.req('GET', '/homes', { token: u.token });
    expect(mine.body.map((h: any) => h.id)).toEqual([a, b]);
    expect(mine.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
    expect((await t.req('GET', `/homes?userId=${u.userId}&limit=1&skip=1`, { token: t.adminKey })).body.map((h: any) => h.id)).toEqual([b]);
    const all = await t.req('GET', '/homes?projectId=1', { token: t.adminKey });
    expect(all.body.map((h: any) => h.id)).toEqual(expect.arrayContaining([a, b]));
  });

  it('reads and renames a home', async () => {
    const u = await seedUser(t);
    const id = await seedHome(t, u.token, 'Old');
    const read = (await t.req('GET', `/homes/${id}`, { token: u.token })).body;
    const r = await t.req('PATCH', `/homes/${id}`, { token: u.token, body: { ...read, name: 'New' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...read, name: 'New' });
    expect((await t.req('GET', `/homes/${id}`, { token: t.adminKey })).body.name).toBe('New');
  });

  it('adds members, changes their role and lets a member leave', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const m = await seedUser(t);
    const added = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { userId: m.userId } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ homeId, userId: m.userId, role: 'member' });
    expect((await t.req('GET', `/homes/${homeId}`, { token: m.token })).status).toBe(200);
    const promoted = await t.req('PATCH', `/homes/${homeId}/members/${m.userId}`, { token: t.adminKey, body: { role: 'owner' } });
    expect(promoted.body).toEqual({ ...added.body, role: 'owner' });
    const list = await t.req('GET', `/homes/${homeId}/members`, { token: m.token });
    expect(list.body.map((x: any) => [x.userId, x.role])).toEqual([
      [owner.userId, 'owner'],
      [m.userId, 'owner'],
    ]);
    expect((await t.req('DELETE', `/homes/${homeId}/members/${m.userId}`, { token: m.token })).status).toBe(204);
    expect((await t.req('GET', `/homes/${homeId}`, { token: m.token })).status).toBe(404);
  });

  it('issues single-use provisioning tokens that expire after the configured time', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const before = Date.now();
    const r = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default', deviceTag: 'SN' } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['expirationTime', 'token']);
    const ttl = Date.parse(r.body.expirationTime) - before;
    expect(ttl).toBeGreaterThan(595_000);
    expect(ttl).toBeLessThan(605_000);
    const byKey = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: t.adminKey, body: { deviceClass: 'default' } });
    expect(byKey.status).toBe(201);
  });

  it('deletes a home: its devices leave it, its KV store and members go', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId });
    await t.deps.store.kv.set('home', homeId, 'mode', 'away', new Date().toISOString(), 1000);
    const r = await t.req('DELETE', `/homes/${homeId}`, { token: u.token });
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/homes/${homeId}`, { token: t.adminKey })).status).toBe(404);
    const dev = await t.req('GET', `/devices/${d.id}`, { token: t.adminKey });
    expect(dev.status).toBe(200);
    expect(dev.body).not.toHaveProperty('homeId');
    expect((await t.deps.store.kv.list('home', homeId)).items).toEqual([]);
    expect(await t.deps.store.members.homesOf(u.userId)).not.toContain(homeId);
  });

  it("lets a member see the home's devices", async () => {
    const owner = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, owner.token);
    const m = await seedUser(t);
    await seedMember(t, owner.token, homeId, m.userId);
    const d = await seedDevice(t, { homeId });
    expect((await t.req('GET', '/devices', { token: m.token })).body.map((x: any) => x.id)).toEqual([d.id]);
  });
});
