// Bad home, member and provisioning requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedHome, seedUser, type SeededUser } from '../../helpers/seed.js';

describe('homes: errors', () => {
  let t: TestApi;
  let u: SeededUser;
  let homeId: number;
  beforeAll(async () => {
    t = await makeTestApi();
    u = await seedUser(t);
    homeId = await seedHome(t, u.token);
  });
  afterAll(() => t.close());

  it('refuses a home without a usable name', async () => {
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: 5 }, { name: 'x'.repeat(200) }, { name: 'x', projectId: 'one' }]) {
      const r = await t.req('POST', '/homes', { token: u.token, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    expect((await t.req('POST', '/homes', { token: u.token, raw: '{' })).body.reason).toBe('INVALID_JSON');
    expect((await t.req('PATCH', `/homes/${homeId}`, { token: u.token, body: { name: '' } })).body.reason).toBe('INVALID_PARAMETERS');
  });

  it('accepts a form-encoded home body', async () => {
    const r = await t.req('POST', '/homes', { token: t.adminKey, form: { name: 'Form home', projectId: '1' } });
    expect(r.status).toBe(201);
  });

  it('asks a project key for the projectId of a new home', async () => {
    const r = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'No project' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'MISSING_PARAMETERS', data: { fields: ['projectId'] } });
  });

  it('answers home ids that are not positive integers, or unknown, with 404 HOME_NOT_FOUND', async () => {
    for (const id of ['abc', '0', '1e3', '99999999999', '5555']) {
      for (const [method, path, body] of [
        ['GET', `/homes/${id}`],
        ['PATCH', `/homes/${id}`, { name: 'x' }],
        ['DELETE', `/homes/${id}`],
        ['GET', `/homes/${id}/members`],
        ['POST', `/homes/${id}/members`, { userId: u.userId }],
        ['DELETE', `/homes/${id}/members/${u.userId}`],
        ['POST', `/homes/${id}/deviceProvisioning`, { deviceClass: 'default' }],
      ] as [string, string, unknown?][]) {
        const r = await t.req(method, path, { token: t.adminKey, body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.reason).toBe('HOME_NOT_FOUND');
      }
    }
  });

  it('refuses bad member bodies and unknown users', async () => {
    for (const body of [{}, { userId: 'me' }, { userId: u.userId, role: 'admin' }, { userId: -1 }]) {
      const r = await t.req('POST', `/homes/${homeId}/members`, { token: u.token, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    const unknown = await t.req('POST', `/homes/${homeId}/members`, { token: u.token, body: { userId: 987654 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ reason: 'USER_NOT_FOUND', data: { userId: 987654 } });
    const notMember = await t.req('DELETE', `/homes/${homeId}/members/987654`, { token: u.token });
    expect(notMember.status).toBe(404);
    expect((await t.req('DELETE', `/homes/${homeId}/members/abc`, { token: u.token })).body.reason).toBe('USER_NOT_FOUND');
  });

  it('refuses provisioning with a bad or unknown device class', async () => {
    for (const body of [{}, { deviceClass: 'bad class' }, { deviceClass: 'default', deviceTag: 5 }]) {
      const r = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    const unknown = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'toaster' } });
    expect(unknown.status).toBe(403);
    expect(unknown.body.reason).toBe('UNKNOWN_DEVICE_CLASS');
  });

  it('refuses bad list queries', async () => {
    for (const q of ['userId=x', 'projectId=-2', 'limit=0']) {
      const r = await t.req('GET', `/homes?${q}`, { token: t.adminKey });
      expect(r.status, q).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });
});
