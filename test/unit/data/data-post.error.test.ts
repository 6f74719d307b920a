// postData refusals: bad bodies, and a failing webhook source answered as `partial` (docs/concepts.md#data-sources).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { noteDataDelivery, REFUSE_FOR_MS } from '../../../src/domain/data/index.js';

let t: TestApi;
beforeAll(async () => {
  t = await makeTestApi();
  t.deps.webhooks = { allowPrivateTargets: true };
});
afterAll(() => t.close());

describe('data posts: refused', () => {
  it('a body that is not 1 to 1000 objects is 403 INVALID_PARAMETERS', async () => {
    const { device, key } = await seedDevice(t.deps);
    for (const body of [{}, { data: [] }, { data: {} }, { data: [1] }, { data: [[]] }, { data: Array.from({ length: 1001 }, () => ({})) }]) {
      const res = await t.req('POST', `/devices/${device.id}/data`, { token: key, body });
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(403);
      expect(res.body.reason).toBe('INVALID_PARAMETERS');
    }
    expect((await t.req('POST', `/devices/${device.id}/data`, { token: key, raw: '{"data":[' })).body.reason).toBe('INVALID_JSON');
  });

  it('a failing webhook source refuses: partial with failedDataSources, the other sources still take the records', async () => {
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'keep', name: 'k', type: 'store' } });
    const hook = await t.req('POST', '/projects/1/dataSources', {
      token: t.adminKey,
      body: { id: 'flaky', name: 'f', type: 'webhook', url: 'http://127.0.0.1:9/in' },
    });
    expect(hook.status).toBe(201);
    const { device, key } = await seedDevice(t.deps);
    // the worker reported a failed delivery to it
    await noteDataDelivery({ deps: t.deps, input: { projectId: 1, sourceId: 'flaky', ok: false, error: 'HTTP_500' } });
    const res = await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ v: 1 }] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'partial', failedDataSources: [['flaky', 'WEBHOOK_FAILING: HTTP_500']] });
    expect((await t.req('GET', '/projects/1/dataSources/keep/records', { token: t.adminKey })).body).toHaveLength(1);
    expect((await t.req('GET', '/projects/1/dataSources/flaky', { token: t.adminKey })).body.health).toMatchObject({ lastError: 'HTTP_500' });

    // after the refusal window, a batch is accepted again (a probe); a success clears the state
    const clock = t.deps.clock;
    t.deps.clock = { now: () => new Date(Date.now() + REFUSE_FOR_MS + 1000) };
    try {
      expect((await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ v: 2 }] } })).body).toEqual({ result: 'success' });
    } finally {
      t.deps.clock = clock;
    }
    await noteDataDelivery({ deps: t.deps, input: { projectId: 1, sourceId: 'flaky', ok: true } });
    expect((await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ v: 3 }] } })).body).toEqual({ result: 'success' });
  });

  it('bad data source settings: 403 INVALID_PARAMETERS, duplicate ids 403 ALREADY_EXISTS, unknown ids 404', async () => {
    for (const body of [
      { name: 'x', type: 'queue' },
      { name: 'x', type: 'webhook' },
      { name: 'x', type: 'store', url: 'http://127.0.0.1/' },
      { name: 'x', type: 'webhook', url: 'ftp://example.com/' },
      { name: 'x', type: 'webhook', url: 'http://127.0.0.1:9/', retentionDays: 3 },
      { name: '', type: 'store' },
      { id: 'A!', name: 'x', type: 'store' },
      { name: 'x', type: 'store', retentionDays: 0 },
    ]) {
      const res = await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.reason).toBe('INVALID_PARAMETERS');
    }
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'twice', name: 'x', type: 'store' } });
    expect((await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'twice', name: 'x', type: 'store' } })).body.reason).toBe(
      'ALREADY_EXISTS',
    );
    expect((await t.req('PATCH', '/projects/1/dataSources/twice', { token: t.adminKey, body: { type: 'webhook' } })).body.reason).toBe('READ_ONLY_FIELD');
    expect((await t.req('PATCH', '/projects/1/dataSources/twice', { token: t.adminKey, body: { url: 'http://127.0.0.1:9/' } })).status).toBe(403);
    expect((await t.req('GET', '/projects/1/dataSources/nope', { token: t.adminKey })).status).toBe(404);
    expect((await t.req('GET', '/projects/x/dataSources', { token: t.adminKey })).body.reason).toBe('PROJECT_NOT_FOUND');
  });
});
