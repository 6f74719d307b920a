// Bad sign-in requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

describe('auth: errors', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('refuses a sign-in body without projectId, email or password with 403 INVALID_PARAMETERS', async () => {
    for (const body of [
      {},
      { projectId: 1, email: 'a@b.c' },
      { email: 'a@b.c', password: 'x' },
      { projectId: 'one', email: 'a@b.c', password: 'x' },
      { projectId: 1, email: 5, password: 'x' },
    ]) {
      const r = await t.req('POST', '/auth/user', { body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('answers malformed JSON with 403 INVALID_JSON', async () => {
    const r = await t.req('POST', '/auth/user', { raw: '{"projectId":' });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_JSON');
  });

  it('answers GET /auth with an unknown token as 401 INVALID_TOKEN, not as nobody', async () => {
    const r = await t.req('GET', '/auth', { token: 'pk.unknown' });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });
});
