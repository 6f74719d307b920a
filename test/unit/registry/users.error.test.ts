// Bad user bodies, duplicate emails, ids that are not ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedUser } from '../../helpers/seed.js';

describe('users: errors', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const valid = { projectId: 1, email: 'x@example.com', password: 'long enough', name: 'X' };

  it('refuses bad user bodies with 403 INVALID_PARAMETERS naming the field', async () => {
    for (const [patch, path] of [
      [{ email: 'not-an-email' }, 'email'],
      [{ password: 'short' }, 'password'],
      [{ name: '   ' }, 'name'],
      [{ name: undefined }, 'name'],
      [{ projectId: 'one' }, 'projectId'],
      [{ canCreateDevices: 'yes' }, 'canCreateDevices'],
    ] as [Record<string, unknown>, string][]) {
      const r = await t.req('POST', '/users', { token: t.adminKey, body: { ...valid, ...patch } });
      expect(r.status, JSON.stringify(patch)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues.map((i: any) => i.path)).toContain(path);
    }
    expect((await t.req('POST', '/users', { token: t.adminKey, raw: '{"email"' })).body.reason).toBe('INVALID_JSON');
  });

  it('accepts a form-encoded body, coercing canCreateDevices', async () => {
    const r = await t.req('POST', '/users', {
      token: t.adminKey,
      form: { projectId: '1', email: 'form@example.com', password: 'long enough', name: 'Form', canCreateDevices: 'true' },
    });
    expect(r.status).toBe(201);
    expect(r.body.canCreateDevices).toBe(true);
  });

  it('refuses an email already used in the project, whatever its case', async () => {
    await t.req('POST', '/users', { token: t.adminKey, body: { ...valid, email: 'dup@example.com' } });
    const r = await t.req('POST', '/users', { token: t.adminKey, body: { ...valid, email: 'DUP@example.com' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'ALREADY_EXISTS', data: { fields: ['email'] } });
    const u = await seedUser(t);
    const taken = await t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { email: 'dup@example.com' } });
    expect(taken.body.reason).toBe('ALREADY_EXISTS');
  });

  it('answers user ids that are not positive integers, or unknown, with 404 USER_NOT_FOUND', async () => {
    for (const id of ['abc', '0', '-3', '99999999999', '4242']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const r = await t.req(method, `/users/${id}`, { token: t.adminKey, body: method === 'PATCH' ? { name: 'x' } : undefined });
        expect(r.status, `${method} ${id}`).toBe(404);
        expect(r.body.reason).toBe('USER_NOT_FOUND');
      }
    }
  });

  it('refuses a bad search or paging query', async () => {
    for (const q of ['limit=0', 'skip=-1', 'projectId=x', `search=${'x'.repeat(300)}`]) {
      const r = await t.req('GET', `/users?${q}`, { token: t.adminKey });
      expect(r.status, q).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('refuses a bad patch', async () => {
    const u = await seedUser(t);
    for (const body of [{ name: '' }, { password: 'short' }, { email: 'nope' }, { canCreateDevices: 1 }]) {
      const r = await t.req('PATCH', `/users/${u.userId}`, { token: t.adminKey, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });
});
