// Operations endpoints (docs/operations.md#health-and-metrics): health, readiness, metrics, docs. None takes a credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';

describe('operations endpoints', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('GET /healthz answers 200 without a credential', async () => {
    const r = await t.req('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 while the store answers', async () => {
    const r = await t.req('GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready' });
  });

  it('GET /readyz answers 503 SERVICE_UNAVAILABLE when an extra readiness check (the bus) fails', async () => {
    t.deps.readiness = async () => {
      throw new Error('bus down');
    };
    try {
      const r = await t.req('GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.body.reason).toBe('SERVICE_UNAVAILABLE');
    } finally {
      delete t.deps.readiness;
    }
  });

  it('GET /docs answers an HTML page that loads /openapi.json', async () => {
    const r = await t.app.request('/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await r.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('/openapi.json');
  });

  it('GET /metrics exposes hearth_http_requests_total labelled by route, method and status', async () => {
    const { device } = await seedDevice(t.deps);
    await t.req('GET', `/devices/${device.id}/kv`, { token: t.adminKey });
    await t.req('GET', `/devices/${device.id}/kv/none`, { token: t.adminKey });
    await t.req('GET', '/no/such/path');
    const r = await t.app.request('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await r.text();
    expect(text).toContain('# TYPE hearth_http_requests_total counter');
    expect(text).toMatch(/hearth_http_requests_total\{route="getKeyValuePairsReceiveUpdates",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/hearth_http_requests_total\{route="lookUpKeyValuePair",method="GET",status="404"\} [1-9]/);
    expect(text).toMatch(/hearth_http_requests_total\{route="unmatched",method="GET",status="404"\} [1-9]/);
    expect(text).toContain('hearth_http_request_duration_seconds_bucket');
  });

  it('labels metrics by operation, never by raw path (bounded label cardinality)', async () => {
    for (let i = 0; i < 5; i++) await t.req('GET', `/devices/${1000 + i}/kv`, { token: t.adminKey });
    const text = await (await t.app.request('/metrics')).text();
    expect(text).not.toContain('/devices/100');
  });
});

describe('readiness with the store closed', () => {
  it('GET /readyz answers 503 SERVICE_UNAVAILABLE', async () => {
    const t = await makeTestApi();
    await t.deps.store.close();
    try {
      const r = await t.req('GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.body.reason).toBe('SERVICE_UNAVAILABLE');
      expect((await t.req('GET', '/healthz')).status).toBe(200);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
