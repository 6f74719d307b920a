// Project API keys and device classes (docs/concepts.md).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedUser } from '../../helpers/seed.js';

describe('projects: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('creates a key with scopes, shows its secret once, and the key works', async () => {
    const r = await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body: { name: 'ci', scopes: ['devices', 'users', 'devices'] } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      projectId: 1,
      name: 'ci',
      scopes: ['devices', 'users'],
      creationTime: expect.any(String),
      key: expect.stringMatching(/^pk\./),
    });
    expect((await t.req('GET', '/auth', { token: r.body.key })).body).toMatchObject({ type: 'project key', projectKeyId: r.body.id, projectKeyName: 'ci' });
    const list = await t.req('GET', '/projects/1/apiKeys', { token: t.adminKey });
    expect(list.status).toBe(200);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
    const listed = list.body.find((k: any) => k.id === r.body.id);
    expect(listed).toEqual({ id: r.body.id, projectId: 1, name: 'ci', scopes: ['devices', 'users'], creationTime: r.body.creationTime });
    expect(JSON.stringify(list.body)).not.toContain(r.body.key);
  });

  it('revokes a key: 204, a revoke on the bus, the general log, and the key stops working', async () => {
    const k = (await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body: { name: 'temp', scopes: ['kv'] } })).body;
    const revokes: unknown[] = [];
    onTestFinished(t.deps.bus.subscribe('revoke', (m) => revokes.push(m)));
    const r = await t.req('DELETE', `/projects/1/apiKeys/${k.id}`, { token: t.adminKey });
    expect(r.status).toBe(204);
    expect(revokes).toEqual([{ kind: 'projectKey', keyId: k.id }]);
    expect((await t.req('GET', '/auth', { token: k.key })).status).toBe(401);
    const texts = (await t.deps.store.logs.list({ projectId: 1 }, { skip: 0, limit: 100 })).items.map((l) => l.text);
    expect(texts).toContain(`project key ${k.id} "temp" created with scopes kv`);
    expect(texts).toContain(`project key ${k.id} "temp" revoked`);
  });

  it('creates, reads, lists and deletes device classes', async () => {
    const c = await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'thermo_v2.1', name: 'Thermostat' } });
    expect(c.status).toBe(201);
    expect(c.body).toEqual({ id: 'thermo_v2.1', projectId: 1, name: 'Thermostat', creationTime: expect.any(String) });
    expect((await t.req('GET', '/projects/1/deviceClasses/thermo_v2.1', { token: t.adminKey })).body).toEqual(c.body);
    const list = await t.req('GET', '/projects/1/deviceClasses', { token: t.adminKey });
    expect(list.body.map((x: any) => x.id)).toEqual(['default', 'thermo_v2.1']);
    expect((await t.req('DELETE', '/projects/1/deviceClasses/thermo_v2.1', { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', '/projects/1/deviceClasses/thermo_v2.1', { token: t.adminKey })).status).toBe(404);
  });

  it('lets users of the project read the device classes', async () => {
    const u = await seedUser(t);
    const r = await t.req('GET', '/projects/1/deviceClasses', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.map((x: any) => x.id)).toContain('default');
  });

  it('refuses to delete a class devices still use with 409 DEVICE_IN_USE', async () => {
    await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'busy' } });
    const d = await seedDevice(t, { deviceClass: 'busy' });
    const r = await t.req('DELETE', '/projects/1/deviceClasses/busy', { token: t.adminKey });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ reason: 'DEVICE_IN_USE', data: { deviceClass: 'busy', devices: 1 } });
    await t.req('DELETE', `/devices/${d.id}`, { token: t.adminKey });
    expect((await t.req('DELETE', '/projects/1/deviceClasses/busy', { token: t.adminKey })).status).toBe(204);
  });
});
