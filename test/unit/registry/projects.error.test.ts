// Bad requests to project keys and device classes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

describe('projects: errors', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('refuses key bodies without a name or with unknown or no scopes', async () => {
    for (const body of [
      { scopes: ['admin'] },
      { name: '', scopes: ['admin'] },
      { name: 'x' },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['root'] },
      { name: 'x', scopes: 'admin' },
    ]) {
      const r = await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    expect((await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, raw: '[' })).body.reason).toBe('INVALID_JSON');
  });

  it('accepts a form-encoded class body', async () => {
    const r = await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, form: { id: 'formed', description: 'from a form' } });
    expect(r.status).toBe(201);
    expect(r.body.description).toBe('from a form');
  });

  it('refuses class ids that break the docs/concepts.md#firmware-bundles pattern, and duplicates', async () => {
    for (const id of ['', '-x', 'x-', 'a b', 'a/b', 'x'.repeat(129), 5]) {
      const r = await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id } });
      expect(r.status, String(id)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    const dup = await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'default' } });
    expect(dup.status).toBe(403);
    expect(dup.body).toEqual({ reason: 'ALREADY_EXISTS', data: { deviceClass: 'default' } });
  });

  it('answers a project id that is not a number, or unknown, with 404 PROJECT_NOT_FOUND', async () => {
    for (const path of ['/projects/abc/apiKeys', '/projects/0/deviceClasses', '/projects/77/apiKeys', '/projects/1.0/deviceClasses/default']) {
      const r = await t.req('GET', path, { token: t.adminKey });
      expect(r.status, path).toBe(404);
      expect(r.body.reason).toBe('PROJECT_NOT_FOUND');
    }
  });

  it('answers unknown keys and classes with 404', async () => {
    const k = await t.req('DELETE', '/projects/1/apiKeys/nope', { token: t.adminKey });
    expect(k.status).toBe(404);
    expect(k.body).toEqual({ reason: 'KEY_NOT_FOUND', data: { keyId: 'nope' } });
    for (const method of ['GET', 'DELETE']) {
      const c = await t.req(method, '/projects/1/deviceClasses/nope', { token: t.adminKey });
      expect(c.status).toBe(404);
      expect(c.body.reason).toBe('NOT_FOUND');
    }
  });
});
