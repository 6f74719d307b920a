// Bad bundle bodies and unknown bundles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

describe('bundles: errors', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const valid = { id: 'fw-2', projectId: 1, deviceClass: 'default', components: [] };

  it('refuses bad bundle bodies with 403 INVALID_PARAMETERS naming the field', async () => {
    for (const [patch, path] of [
      [{ id: '-fw' }, 'id'],
      [{ id: 'fw..' }, 'id'],
      [{ id: 'a'.repeat(60) + '!' }, 'id'],
      [{ deviceClass: undefined }, 'deviceClass'],
      [{ components: undefined }, 'components'],
      [{ components: [{ componentName: 'x' }] }, 'components.0.componentVersionName'],
      [{ components: [{ componentName: 'x', componentVersionName: '1', url: 'not a url' }] }, 'components.0.url'],
      [{ components: [{ componentName: 'x', componentVersionName: '1', deviceConfigSchema: {} }] }, 'components.0.deviceConfigSchema'],
      [{ projectId: 'one' }, 'projectId'],
    ] as [Record<string, unknown>, string][]) {
      const r = await t.req('POST', '/bundles', { token: t.adminKey, body: { ...valid, ...patch } });
      expect(r.status, JSON.stringify(patch)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues.map((i: any) => i.path)).toContain(path);
    }
    expect((await t.req('POST', '/bundles', { token: t.adminKey, raw: 'nope' })).body.reason).toBe('INVALID_JSON');
  });

  it('refuses an unknown class and a taken id', async () => {
    expect((await t.req('POST', '/bundles', { token: t.adminKey, body: { ...valid, deviceClass: 'toaster' } })).body.reason).toBe('UNKNOWN_DEVICE_CLASS');
    expect((await t.req('POST', '/bundles', { token: t.adminKey, body: valid })).status).toBe(201);
    const dup = await t.req('POST', '/bundles', { token: t.adminKey, body: valid });
    expect(dup.status).toBe(403);
    expect(dup.body).toEqual({ reason: 'ALREADY_EXISTS', data: { bundleId: 'fw-2' } });
  });

  it('answers unknown bundles with 404 BUNDLE_NOT_FOUND', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await t.req(method, '/bundles/nope', { token: t.adminKey });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ reason: 'BUNDLE_NOT_FOUND', data: { bundleId: 'nope' } });
    }
  });

  it('refuses bad list queries', async () => {
    expect((await t.req('GET', '/bundles?projectId=x', { token: t.adminKey })).body.reason).toBe('INVALID_PARAMETERS');
    expect((await t.req('GET', '/bundles?limit=0', { token: t.adminKey })).body.reason).toBe('INVALID_PARAMETERS');
  });
});
