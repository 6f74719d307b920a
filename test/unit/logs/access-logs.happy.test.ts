// GET /httpAccessLogs (docs/operations.md#logs getHTTPAccessLogEntries, docs/operations.md#logs): what is recorded, how it
// reads back, and the filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedKey } from '../../helpers/store-seed.js';

describe('HTTP access logs: happy paths', () => {
  let t: TestApi;
  let deviceId: number;
  let deviceKey: string;
  let logsKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    ({
      device: { id: deviceId },
      key: deviceKey,
    } = await seedDevice(t.deps));
    ({ key: logsKey } = await seedKey(t.deps, { scopes: ['logs'] }));
  });
  afterAll(() => t.close());

  const entries = async (query = '', token = logsKey) => {
    await t.deps.accessLog.flush();
    const r = await t.req('GET', `/httpAccessLogs${query}`, { token });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r;
  };

  it('records an authenticated request with exactly the docs/operations.md#logs fields, latency an integer of nanoseconds', async () => {
    await t.req('GET', `/devices/${deviceId}/kv`, { token: deviceKey });
    const r = await entries(`?pathPrefix=/devices/${deviceId}/kv&method=GET`);
    expect(r.body).toHaveLength(1);
    const e = r.body[0];
    expect(Object.keys(e).sort()).toEqual(['clientIp', 'latency', 'method', 'path', 'statusCode', 'timestamp']);
    expect(e).toMatchObject({ clientIp: '127.0.0.1', method: 'GET', path: `/devices/${deviceId}/kv`, statusCode: 200 });
    expect(Number.isInteger(e.latency) && e.latency > 0).toBe(true);
    expect(e.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('records failures too, with their status', async () => {
    await t.req('GET', `/devices/${deviceId}/kv/nothing-here`, { token: t.adminKey });
    const r = await entries('?statusCode=404');
    expect(r.body.some((e: { path: string }) => e.path === `/devices/${deviceId}/kv/nothing-here`)).toBe(true);
    expect(r.body.every((e: { statusCode: number }) => e.statusCode === 404)).toBe(true);
  });

  it('never keeps the query string: ?authToken=secret is not stored', async () => {
    await t.req('GET', `/devices/${deviceId}/kv?authToken=supersecret-value&keyPrefix=x`, { token: t.adminKey });
    const r = await entries('?limit=10000');
    expect(JSON.stringify(r.body)).not.toContain('supersecret');
    expect(r.body.some((e: { path: string }) => e.path === `/devices/${deviceId}/kv`)).toBe(true);
    const rows = await t.deps.store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10000 });
    expect(JSON.stringify(rows)).not.toContain('supersecret');
  });

  it('does not record requests without a credential, or with a credential that resolves to nobody', async () => {
    await t.req('GET', '/devices/424242/kv/unauth-probe');
    await t.req('GET', '/devices/424242/kv/bad-token-probe', { token: 'pk.unknown' });
    await t.req('GET', '/healthz');
    const r = await entries('?limit=10000');
    const paths = r.body.map((e: { path: string }) => e.path);
    expect(paths).not.toContain('/devices/424242/kv/unauth-probe');
    expect(paths).not.toContain('/devices/424242/kv/bad-token-probe');
    expect(paths).not.toContain('/healthz');
  });

  it('lists newest first, pages with skip/limit and sets the range header', async () => {
    for (const k of ['p1', 'p2', 'p3']) await t.req('PUT', `/devices/${deviceId}/kv/${k}`, { token: t.adminKey, body: { value: 1 } });
    const all = await entries(`?pathPrefix=/devices/${deviceId}/kv/p&method=put`);
    expect(all.body.map((e: { path: string }) => e.path)).toEqual([3, 2, 1].map((n) => `/devices/${deviceId}/kv/p${n}`));
    expect(all.headers.get('vnd.tinkermode.range')).toBe('0-2/3');
    const page = await entries(`?pathPrefix=/devices/${deviceId}/kv/p&skip=1&limit=1`);
    expect(page.body.map((e: { path: string }) => e.path)).toEqual([`/devices/${deviceId}/kv/p2`]);
    expect(page.headers.get('vnd.tinkermode.range')).toBe('1-1/3');
  });

  it('filters by time with since (inclusive) and until (exclusive), RFC 3339 with any offset', async () => {
    const before = new Date(Date.now() - 60_000);
    await t.req('GET', `/devices/${deviceId}/kv`, { token: t.adminKey });
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await entries(`?since=${encodeURIComponent(future)}`)).body).toEqual([]);
    const withOffset = before.toISOString().replace('Z', '+00:00');
    expect((await entries(`?since=${encodeURIComponent(withOffset)}`)).body.length).toBeGreaterThan(0);
    expect((await entries(`?until=${encodeURIComponent(before.toISOString())}`)).body).toEqual([]);
    const r = await entries(`?since=${encodeURIComponent(before.toISOString())}&until=${encodeURIComponent(future)}`);
    expect(r.headers.get('vnd.tinkermode.range')).toMatch(/^0-\d+\/\d+$/);
  });

  it('defaults projectId to the key project and accepts it when given explicitly', async () => {
    const a = await entries('?limit=5');
    const b = await entries('?limit=5&projectId=1');
    expect(b.body.length).toBe(a.body.length);
  });

  it('records the access-log reads themselves', async () => {
    await entries();
    const r = await entries('?pathPrefix=/httpAccessLogs');
    expect(r.body.length).toBeGreaterThan(0);
  });
});
