// Data sources (docs/concepts.md#data-sources): create, read, update, delete, and the records a store source keeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';

let t: TestApi;
beforeAll(async () => {
  t = await makeTestApi();
  t.deps.webhooks = { allowPrivateTargets: true };
});
afterAll(() => t.close());

const base = '/projects/1/dataSources';

describe('data sources: CRUD', () => {
  it('creates a store source and a webhook source; the webhook key is shown once', async () => {
    const store = await t.req('POST', base, { token: t.adminKey, body: { id: 'all-data', name: 'All data', type: 'store', retentionDays: 7 } });
    expect(store.status).toBe(201);
    expect(store.body).toMatchObject({ id: 'all-data', projectId: 1, name: 'All data', type: 'store', retentionDays: 7 });
    expect(store.body.key).toBeUndefined();
    const hook = await t.req('POST', base, {
      token: t.adminKey,
      body: { name: 'Sink', type: 'webhook', url: 'http://127.0.0.1:9/x', deviceClasses: ['sensor'] },
    });
    expect(hook.status).toBe(201);
    expect(hook.body.id).toMatch(/^ds-[0-9a-f]{10}$/);
    expect(hook.body.key).toMatch(/^whk\.[A-Za-z0-9_-]{43}$/);
    const got = await t.req('GET', `${base}/${hook.body.id}`, { token: t.adminKey });
    expect(got.body.key).toMatch(/^whk\.\*\*\*\*.{4}$/);
    expect(got.body.key.slice(-4)).toBe(hook.body.key.slice(-4));
    const list = await t.req('GET', base, { token: t.adminKey });
    expect(list.body.map((s: { id: string }) => s.id)).toEqual(['all-data', hook.body.id].sort());
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
  });

  it('updates name, classes, retention; rotates a key; id and type sent back unchanged are ignored', async () => {
    await t.req('POST', base, { token: t.adminKey, body: { id: 'upd-store', name: 'x', type: 'store' } });
    const res = await t.req('PATCH', `${base}/upd-store`, {
      token: t.adminKey,
      body: { id: 'upd-store', type: 'store', name: 'renamed', deviceClasses: ['a', 'b'], retentionDays: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'renamed', deviceClasses: ['a', 'b'] });
    expect(res.body.retentionDays).toBeUndefined();
    const hook = await t.req('POST', base, { token: t.adminKey, body: { id: 'upd-hook', name: 'h', type: 'webhook', url: 'http://127.0.0.1:9/a' } });
    const rotated = await t.req('PATCH', `${base}/upd-hook`, { token: t.adminKey, body: { rotateKey: true, url: 'http://127.0.0.1:9/b' } });
    expect(rotated.body.url).toBe('http://127.0.0.1:9/b');
    expect(rotated.body.key).toMatch(/^whk\.[A-Za-z0-9_-]{43}$/);
    expect(rotated.body.key).not.toBe(hook.body.key);
  });

  it('deletes a source with its records', async () => {
    await t.req('POST', base, { token: t.adminKey, body: { id: 'gone-soon', name: 'g', type: 'store' } });
    const { device, key } = await seedDevice(t.deps);
    await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ a: 1 }] } });
    expect((await t.req('GET', `${base}/gone-soon/records`, { token: t.adminKey })).body).toHaveLength(1);
    expect((await t.req('DELETE', `${base}/gone-soon`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', `${base}/gone-soon`, { token: t.adminKey })).status).toBe(404);
    expect((await t.deps.store.dataRecords.list({ projectId: 1, sourceId: 'gone-soon' }, { skip: 0, limit: 10 })).total).toBe(0);
  });
});
