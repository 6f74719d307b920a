import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

describe('HTTP edge', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 NOT_FOUND and a request id', async () => {
    const r = await t.req('GET', '/no/such/route');
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('NOT_FOUND');
    expect(r.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('answers a known route with the wrong method with 405 METHOD_NOT_ALLOWED', async () => {
    const r = await t.req('DELETE', '/healthz');
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ reason: 'METHOD_NOT_ALLOWED', data: { allowed: ['GET', 'HEAD'] } });
  });

  it('echoes a sane incoming request id and replaces an unsafe one', async () => {
    expect((await t.req('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } })).headers.get('x-request-id')).toBe('abc-123');
    expect((await t.req('GET', '/healthz', { headers: { 'x-request-id': 'a b\u0001' } })).headers.get('x-request-id')).not.toBe('a b\u0001');
  });

  it('allows any origin without credentials and exposes the range header', async () => {
    const r = await t.app.request('/healthz', { method: 'OPTIONS', headers: { origin: 'http://x.example', 'access-control-request-method': 'GET' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    const g = await t.app.request('/healthz', { headers: { origin: 'http://x.example' } });
    expect(g.headers.get('access-control-expose-headers')).toContain('vnd.tinkermode.range');
  });

  it('reports readiness when the store answers', async () => {
    expect((await t.req('GET', '/readyz')).status).toBe(200);
  });
});
