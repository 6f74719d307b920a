// Firmware bundles (docs/concepts.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedBundle, seedDevice } from '../../helpers/seed.js';

describe('bundles: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
    await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'cam' } });
  });
  afterAll(() => t.close());

  it('creates and reads a bundle with its components', async () => {
    const body = {
      id: 'fw-1.0.0',
      projectId: 1,
      name: 'First',
      deviceClass: 'default',
      channel: 'stable',
      components: [
        {
          componentName: 'core',
          componentVersionName: '1.0.0',
          filename: 'core.bin',
          checksum: 'sha256:ab',
          url: 'https://fw.example/core.bin',
          deviceConfigSchema: [{ k: 1 }],
        },
      ],
    };
    const r = await t.req('POST', '/bundles', { token: t.adminKey, body });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ ...body, creationTime: expect.any(String) });
    expect((await t.req('GET', '/bundles/fw-1.0.0', { token: t.adminKey })).body).toEqual(r.body);
  });

  it('lists bundles by class and channel with the range header', async () => {
    const a = await seedBundle(t, { deviceClass: 'cam', channel: 'beta' });
    const b = await seedBundle(t, { deviceClass: 'cam' });
    const ids = async (q: string) => (await t.req('GET', `/bundles?${q}`, { token: t.adminKey })).body.map((x: any) => x.id);
    expect(await ids('deviceClass=cam')).toEqual([a, b]);
    expect(await ids('deviceClass=cam&channel=beta')).toEqual([a]);
    const page = await t.req('GET', '/bundles?deviceClass=cam&skip=1&limit=1', { token: t.adminKey });
    expect(page.body.map((x: any) => x.id)).toEqual([b]);
    expect(page.headers.get('vnd.tinkermode.range')).toBe('1-1/2');
  });

  it('shows a device the bundles of its own class and channel, whatever it asks for', async () => {
    const onBeta = await seedBundle(t, { deviceClass: 'default', channel: 'beta' });
    const noChannel = await seedBundle(t, { deviceClass: 'default' });
    const cam = await seedBundle(t, { deviceClass: 'cam', channel: 'beta' });
    const d = await seedDevice(t, { channel: 'beta' });
    const r = await t.req('GET', '/bundles?deviceClass=cam', { token: d.apiKey });
    expect(r.status).toBe(200);
    const ids = r.body.map((x: any) => x.id);
    expect(ids).toContain(onBeta);
    expect(ids).not.toContain(noChannel);
    expect(ids).not.toContain(cam);
    expect((await t.req('GET', `/bundles/${onBeta}`, { token: d.apiKey })).status).toBe(200);
  });

  it('deletes a bundle; a device that installed it keeps the record and gets [] config schemas', async () => {
    const id = await seedBundle(t, { components: [{ componentName: 'c', componentVersionName: '1', deviceConfigSchema: [1] }] });
    const d = await seedDevice(t);
    await t.req('PUT', `/devices/${d.id}/bundle`, { token: d.apiKey, body: { bundleId: id } });
    expect((await t.req('DELETE', `/bundles/${id}`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', `/bundles/${id}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body.bundleInstalled).toBe(id);
    expect((await t.req('GET', `/devices/${d.id}/configSchemas`, { token: d.apiKey })).body).toEqual([]);
  });
});
