// Home members by email and role changes (docs/concepts.md): a home keeps at least one owner while it
// has members, whichever operation would take the last one away (PATCH, DELETE). Re-adding a member
// never changes its role (docs/api.md#homes-and-members).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedHome, seedMember, seedProject, seedUser } from '../../helpers/seed.js';

describe('home members: roles and email', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('adds by email (any case, phoneNumber ignored) and by userId; needs one of them', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const a = await seedUser(t, { name: 'Ann' });
    const byEmail = await t.req('POST', `/homes/${homeId}/members`, {
      token: owner.token,
      body: { email: ` ${a.email.toUpperCase()} `, phoneNumber: '+15550100' },
    });
    expect(byEmail.status).toBe(201);
    expect(byEmail.body).toEqual({ homeId, userId: a.userId, name: 'Ann', email: a.email, verified: true, role: 'member', creationTime: expect.any(String) });
    const neither = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { role: 'member' } });
    expect(neither.status).toBe(403);
    expect(neither.body.reason).toBe('INVALID_PARAMETERS');
  });

  it("treats another project's user as unknown, by email as by id", async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const other = await seedProject(t);
    const stranger = await seedUser(t, { key: other.key, projectId: other.projectId });
    const r = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { email: stranger.email, role: 'member' } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ reason: 'USER_NOT_FOUND', data: { email: stranger.email } });
  });

  it('answers a re-added member unchanged with the same role, refuses another role with ALREADY_EXISTS (docs/api.md#homes-and-members)', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const m = await seedUser(t, { name: 'Mo' });
    const first = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { userId: m.userId, role: 'member' } });
    expect(first.status).toBe(201);
    const again = await t.req('POST', `/homes/${homeId}/members`, { token: owner.token, body: { email: m.email, role: 'member' } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    for (const [who, role] of [
      [m.userId, 'owner'],
      [owner.userId, 'member'],
    ] as const) {
      for (const token of [owner.token, t.adminKey]) {
        const r = await t.req('POST', `/homes/${homeId}/members`, { token, body: { userId: who, role } });
        expect(r.status).toBe(403);
        expect(r.body.reason).toBe('ALREADY_EXISTS');
        expect(r.body.data).toMatchObject({ homeId, userId: who, role: role === 'owner' ? 'member' : 'owner' });
        expect(r.body.data.message).toContain(`PATCH /homes/${homeId}/members/${who}`);
      }
    }
    // nothing changed
    const list = await t.req('GET', `/homes/${homeId}/members`, { token: owner.token });
    expect(list.body.map((x: any) => [x.userId, x.role])).toEqual([
      [owner.userId, 'owner'],
      [m.userId, 'member'],
    ]);
  });

  it('keeps an owner: demoting through PATCH or removing the last owner is 403 LAST_OWNER', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const m = await seedUser(t);
    await seedMember(t, owner.token, homeId, m.userId);
    for (const [method, path, body] of [
      ['PATCH', `/homes/${homeId}/members/${owner.userId}`, { role: 'member' }],
      ['DELETE', `/homes/${homeId}/members/${owner.userId}`, undefined],
    ] as const) {
      for (const token of [owner.token, t.adminKey]) {
        const r = await t.req(method, path, { token, body });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.reason).toBe('LAST_OWNER');
      }
    }
    const list = await t.req('GET', `/homes/${homeId}/members`, { token: owner.token });
    expect(list.body.map((x: any) => [x.userId, x.role])).toEqual([
      [owner.userId, 'owner'],
      [m.userId, 'member'],
    ]);
    // with a second owner, the first may step down and then leave
    expect((await t.req('PATCH', `/homes/${homeId}/members/${m.userId}`, { token: owner.token, body: { role: 'owner' } })).status).toBe(200);
    expect((await t.req('PATCH', `/homes/${homeId}/members/${owner.userId}`, { token: m.token, body: { role: 'member' } })).body.role).toBe('member');
    expect((await t.req('DELETE', `/homes/${homeId}/members/${owner.userId}`, { token: owner.token })).status).toBe(204);
  });

  it('lets the sole member, an owner, leave its home', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    expect((await t.req('DELETE', `/homes/${homeId}/members/${owner.userId}`, { token: owner.token })).status).toBe(204);
    expect((await t.req('GET', `/homes/${homeId}/members`, { token: t.adminKey })).body).toEqual([]);
  });

  it('lets only owners and project keys change roles; a member is refused', async () => {
    const owner = await seedUser(t);
    const homeId = await seedHome(t, owner.token);
    const m = await seedUser(t);
    await seedMember(t, owner.token, homeId, m.userId);
    const r = await t.req('PATCH', `/homes/${homeId}/members/${m.userId}`, { token: m.token, body: { role: 'owner' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
    const outsider = await seedUser(t);
    expect((await t.req('PATCH', `/homes/${homeId}/members/${m.userId}`, { token: outsider.token, body: { role: 'owner' } })).body.reason).toBe(
      'HOME_NOT_FOUND',
    );
  });
});
