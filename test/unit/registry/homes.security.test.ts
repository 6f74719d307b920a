// Homes are seen by their members and their project's keys only; owners manage them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedKey, seedMember, seedProject, seedUser, type SeededUser } from '../../helpers/seed.js';

describe('homes: security', () => {
  let t: TestApi;
  let other: { projectId: number; key: string };
  let owner: SeededUser;
  let homeId: number;
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t);
    owner = await seedUser(t);
    homeId = await seedHome(t, owner.token, 'Victim home');
  });
  afterAll(() => t.close());

  for (const [method, path, body] of [
    ['GET', '/homes'],
    ['POST', '/homes', { name: 'x' }],
    ['GET', '/homes/1'],
    ['PATCH', '/homes/1', { name: 'x' }],
    ['DELETE', '/homes/1'],
    ['GET', '/homes/1/members'],
    ['POST', '/homes/1/members', { userId: 1 }],
    ['DELETE', '/homes/1/members/1'],
    ['POST', '/homes/1/deviceProvisioning', { deviceClass: 'default' }],
  ] as [string, string, unknown?][]) {
    runCommonRouteTests(() => t, { method, path: () => path, body: body ? () => body : undefined });
  }

  const everything = (id: number, userId: number): [string, string, unknown?][] => [
    ['GET', `/homes/${id}`],
    ['PATCH', `/homes/${id}`, { name: 'pwned' }],
    ['DELETE', `/homes/${id}`],
    ['GET', `/homes/${id}/members`],
    ['POST', `/homes/${id}/members`, { userId }],
    ['DELETE', `/homes/${id}/members/${owner.userId}`],
    ['POST', `/homes/${id}/deviceProvisioning`, { deviceClass: 'default' }],
  ];

  it("hides a home from another project's key and from a user of another home", async () => {
    const stranger = await seedUser(t);
    for (const [token, userId] of [
      [other.key, owner.userId],
      [stranger.token, stranger.userId],
    ] as [string, number][]) {
      for (const [method, path, body] of everything(homeId, userId)) {
        const r = await t.req(method, path, { token, body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.reason).toBe('HOME_NOT_FOUND');
      }
    }
    expect((await t.req('GET', '/homes', { token: stranger.token })).body).toEqual([]);
    expect((await t.req('GET', '/homes?projectId=1', { token: other.key })).body.reason).toBe('PERMISSION_DENIED');
    expect((await t.req('GET', `/homes/${homeId}`, { token: owner.token })).body.name).toBe('Victim home');
  });

  it('lets members read but not manage; only owners and keys manage', async () => {
    const m = await seedUser(t);
    const third = await seedUser(t);
    await seedMember(t, owner.token, homeId, m.userId);
    expect((await t.req('GET', `/homes/${homeId}`, { token: m.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', `/homes/${homeId}`, { name: 'pwned' }],
      ['DELETE', `/homes/${homeId}`],
      ['POST', `/homes/${homeId}/members`, { userId: third.userId }],
      ['POST', `/homes/${homeId}/members`, { userId: m.userId, role: 'owner' }],
      ['DELETE', `/homes/${homeId}/members/${owner.userId}`],
    ] as [string, string, unknown?][]) {
      const r = await t.req(method, path, { token: m.token, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
    // a member may still ask for a provisioning token for its home
    expect((await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: m.token, body: { deviceClass: 'default' } })).status).toBe(201);
  });

  it('refuses to add a user of another project, as if it did not exist', async () => {
    const foreign = await t.req('POST', '/users', {
      token: other.key,
      body: { projectId: other.projectId, email: 'f@example.com', password: 'long enough', name: 'F' },
    });
    const r = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { userId: foreign.body.id } });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('USER_NOT_FOUND');
  });

  it("does not let a user list another user's homes, nor a key create a home in another project", async () => {
    const u = await seedUser(t);
    expect((await t.req('GET', `/homes?userId=${owner.userId}`, { token: u.token })).body.reason).toBe('PERMISSION_DENIED');
    const r = await t.req('POST', '/homes', { token: other.key, body: { name: 'x', projectId: 1 } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
    const user = await t.req('POST', '/homes', { token: u.token, body: { name: 'x', projectId: other.projectId } });
    expect(user.body.reason).toBe('PERMISSION_DENIED');
  });

  it('refuses devices and keys without the homes scope', async () => {
    const d = await seedDevice(t);
    const { key } = await seedKey(t, 1, ['users']);
    for (const token of [d.apiKey, key]) {
      for (const [method, path, body] of [
        ['GET', '/homes'],
        ['POST', '/homes', { name: 'x', projectId: 1 }],
        ['GET', `/homes/${homeId}`],
      ] as [string, string, unknown?][]) {
        const r = await t.req(method, path, { token, body });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.reason).toBe('PERMISSION_DENIED');
      }
    }
  });

  it('refuses forged read-only home fields', async () => {
    const r = await t.req('PATCH', `/homes/${homeId}`, { token: owner.token, body: { id: 1234, projectId: other.projectId } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'READ_ONLY_FIELD', data: { fields: ['id', 'projectId'] } });
  });
});
