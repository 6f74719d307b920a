// postData (docs/concepts.md#data-sources): records routed to every matching source; store sources keep
// them queryable by device and time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedProject } from '../../helpers/store-seed.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';

let t: TestApi;
let other: { projectId: number; adminKey: string };
beforeAll(async () => {
  t = await makeTestApi();
  t.deps.webhooks = { allowPrivateTargets: true };
  other = await seedProject(t.deps);
});
afterAll(() => t.close());

const records = (sourceId: string, q = '', projectId = 1, token?: string) =>
  t.req('GET', `/projects/${projectId}/dataSources/${sourceId}/records${q}`, { token: token ?? t.adminKey });

describe('data posts', () => {
  it('a project with no source answers success', async () => {
    const { device, key } = await seedDevice(t.deps, { projectId: other.projectId });
    const res = await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ x: 1 }] } });
    expect(res.status).toBe(200);
    expectSpecStatus('postData', res.status, 200);
    expect(res.body).toEqual({ result: 'success' });
  });

  it('routes each record to every source whose class filter takes the device', async () => {
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'everything', name: 'e', type: 'store' } });
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'sensors-only', name: 's', type: 'store', deviceClasses: ['sensor'] } });
    const { device: plain, key: plainKey } = await seedDevice(t.deps);
    const { device: sensor, key: sensorKey } = await seedDevice(t.deps, { deviceClass: 'sensor' });
    const a = await t.req('POST', `/devices/${plain.id}/data`, { token: plainKey, body: { data: [{ temp: 20 }, { temp: 21 }] } });
    const b = await t.req('POST', `/devices/${sensor.id}/data`, { token: sensorKey, body: { data: [{ temp: 30, nested: { ok: true } }] } });
    expect(a.body).toEqual({ result: 'success' });
    expect(b.body).toEqual({ result: 'success' });
    const all = await records('everything');
    expect(all.body).toHaveLength(3);
    expect(all.body[0]).toMatchObject({ deviceId: sensor.id, data: { temp: 30, nested: { ok: true } } });
    const sensors = await records('sensors-only');
    expect(sensors.body).toHaveLength(1);
    expect(sensors.body[0].deviceId).toBe(sensor.id);
    const byDevice = await records('everything', `?deviceId=${plain.id}`);
    expect(byDevice.body.map((r: { data: { temp: number } }) => r.data.temp).sort()).toEqual([20, 21]);
    expect(byDevice.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
  });

  it('records are queryable by time, and a project key with scope data may post for a device', async () => {
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'timed', name: 't', type: 'store' } });
    const { device } = await seedDevice(t.deps);
    const before = new Date().toISOString();
    await t.req('POST', `/devices/${device.id}/data`, { token: t.adminKey, body: { data: [{ n: 1 }] } });
    const after = new Date(Date.now() + 1).toISOString();
    expect((await records('timed', `?since=${before}&deviceId=${device.id}`)).body).toHaveLength(1);
    expect((await records('timed', `?until=${before}&deviceId=${device.id}`)).body).toHaveLength(0);
    expect((await records('timed', `?since=${after}`)).body).toHaveLength(0);
  });

  it('accepts a form-free JSON body of 1000 records', async () => {
    const { device, key } = await seedDevice(t.deps, { projectId: other.projectId });
    await t.req('POST', `/projects/${other.projectId}/dataSources`, { token: other.adminKey, body: { id: 'bulk', name: 'b', type: 'store' } });
    const data = Array.from({ length: 1000 }, (_, i) => ({ i }));
    expect((await t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data } })).body).toEqual({ result: 'success' });
    expect((await records('bulk', '?limit=1', other.projectId, other.adminKey)).headers.get('vnd.tinkermode.range')).toBe('0-0/1000');
  });
});
