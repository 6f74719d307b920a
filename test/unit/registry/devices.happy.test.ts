// The device registry as clients use it (docs/api.md#device-operations, docs/concepts.md#devices): the three forms of addDeviceHome,
// reading, listing, updating, tagging, firmware records and deletion.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';
import { seedBundle, seedDevice, seedHome, seedProject, seedUser } from '../../helpers/seed.js';
import { AppError } from '../../../src/domain/errors.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('devices: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('creates a pre-provisioned device with a new apiKey and claimCode, claimable for a day', async () => {
    const before = Date.now();
    const r = await t.req('POST', '/devices', {
      token: t.adminKey,
      body: { projectId: 1, deviceClass: 'default', name: 'Lamp', tag: 'SN-1', channel: 'beta' },
    });
    expectSpecStatus('addDeviceHome', r.status, 201);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ projectId: 1, deviceClass: 'default', name: 'Lamp', tag: 'SN-1', channel: 'beta', isConnected: false });
    expect(r.body.apiKey).toMatch(/^dk\./);
    expect(r.body.claimCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(r.body.creationTime).toMatch(ISO_MS);
    const window = Date.parse(r.body.claimExpirationTime) - before;
    expect(window).toBeGreaterThan(24 * 3600 * 1000 - 5000);
    expect(window).toBeLessThan(24 * 3600 * 1000 + 5000);
    // null optional fields are left out (docs/api.md#conventions)
    expect(r.body).not.toHaveProperty('homeId');
    expect(r.body).not.toHaveProperty('description');
    expect(r.body).not.toHaveProperty('claimTime');
  });

  it('lets a user with canCreateDevices create a device straight into its home', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const r = await t.req('POST', '/devices', { token: u.token, body: { projectId: 1, deviceClass: 'default', homeId } });
    expect(r.status).toBe(201);
    expect(r.body.homeId).toBe(homeId);
    expect(r.body.claimTime).toMatch(ISO_MS);
    expect(r.body).not.toHaveProperty('claimExpirationTime');
    // the creator gets the credentials it must flash into the device
    expect(r.body.apiKey).toMatch(/^dk\./);
  });

  it('claims a pre-provisioned device by its code, ignoring case and dashes, into a home', async () => {
    const d = await seedDevice(t);
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const code = d.claimCode.replace(/-/g, '').toLowerCase();
    const r = await t.req('POST', '/devices', { token: u.token, body: { claimCode: code, homeId } });
    expectSpecStatus('addDeviceHome', r.status, 201);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: d.id, homeId });
    expect(r.body.claimTime).toMatch(ISO_MS);
    // the window closed at the claim
    expect(Date.parse(r.body.claimExpirationTime)).toBeLessThanOrEqual(Date.now());
    expect(r.body).not.toHaveProperty('apiKey');
    expect(r.body).not.toHaveProperty('claimCode');
  });

  it('lets a project key claim a device into one of its homes', async () => {
    const d = await seedDevice(t);
    const home = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'Depot', projectId: 1 } });
    const r = await t.req('POST', '/devices', { token: t.adminKey, body: { claimCode: d.claimCode, homeId: home.body.id } });
    expect(r.status).toBe(201);
    expect(r.body.homeId).toBe(home.body.id);
    expect(r.body.apiKey).toBe(d.apiKey);
  });

  it('provisions a device on demand with a token and no credential: apiKey in the answer', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const pt = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default', deviceTag: 'SN-77' } });
    expect(pt.status).toBe(201);
    expect(pt.body.token).toMatch(/^pt\./);
    const r = await t.req('POST', '/devices', { body: { token: pt.body.token } });
    expectSpecStatus('addDeviceHome', r.status, 201);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ projectId: 1, deviceClass: 'default', homeId, tag: 'SN-77' });
    expect(r.body.apiKey).toMatch(/^dk\./);
    expect(r.body.claimCode).toBeTypeOf('string');
    // the new key works at once
    const me = await t.req('GET', '/auth', { token: r.body.apiKey });
    expect(me.body).toEqual({ type: 'device', deviceId: r.body.id, projectId: 1 });
  });

  it('lets deviceClass override the class tied to the provisioning token', async () => {
    await t.req('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'sensor' } });
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const pt = await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default' } });
    const r = await t.req('POST', '/devices', { body: { token: pt.body.token, deviceClass: 'sensor', projectId: 99 } });
    expect(r.status).toBe(201);
    expect(r.body.deviceClass).toBe('sensor');
    expect(r.body.projectId).toBe(1);
  });

  it('reads a device as a project key (with secrets), a home member and the device itself (without)', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId, name: 'Heater' });
    const asKey = await t.req('GET', `/devices/${d.id}`, { token: t.adminKey });
    expectSpecStatus('getDeviceInfo', asKey.status, 200);
    expect(asKey.body).toMatchObject({ id: d.id, name: 'Heater', homeId, apiKey: d.apiKey, claimCode: d.claimCode });
    for (const token of [u.token, d.apiKey]) {
      const r = await t.req('GET', `/devices/${d.id}`, { token });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: d.id, name: 'Heater', homeId });
      expect(r.body).not.toHaveProperty('apiKey');
      expect(r.body).not.toHaveProperty('claimCode');
    }
  });

  it("lists the project's devices with filters, paging and the range header", async () => {
    const { projectId, key } = await seedProject(t, 'Listing');
    await t.req('POST', `/projects/${projectId}/deviceClasses`, { token: key, body: { id: 'cam' } });
    const a = await seedDevice(t, { key, projectId, name: 'Front door', tag: 'T1' });
    const b = await seedDevice(t, { key, projectId, name: 'Garage', tag: 'T2', deviceClass: 'cam' });
    await t.deps.store.devices.setConnected(b.id, true, new Date().toISOString());
    const all = await t.req('GET', '/devices', { token: key });
    expectSpecStatus('getAllDevices', all.status, 200);
    expect(all.body.map((d: any) => d.id)).toEqual([a.id, b.id]);
    expect(all.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
    const ids = async (q: string) => (await t.req('GET', `/devices?${q}`, { token: key })).body.map((d: any) => d.id);
    expect(await ids('deviceClass=cam')).toEqual([b.id]);
    expect(await ids('tag=T1')).toEqual([a.id]);
    expect(await ids('isConnected=true')).toEqual([b.id]);
    expect(await ids('isConnected=false')).toEqual([a.id]);
    expect(await ids('search=DOOR')).toEqual([a.id]);
    expect(await ids(`projectId=${projectId}`)).toEqual([a.id, b.id]);
    const page = await t.req('GET', '/devices?skip=1&limit=1', { token: key });
    expect(page.body.map((d: any) => d.id)).toEqual([b.id]);
    expect(page.headers.get('vnd.tinkermode.range')).toBe('1-1/2');
    const none = await t.req('GET', '/devices?tag=nope', { token: key });
    expect(none.body).toEqual([]);
    expect(none.headers.get('vnd.tinkermode.range')).toBe('*/0');
  });

  it("lists only the devices of a user's homes, optionally one home", async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const h1 = await seedHome(t, u.token, 'One');
    const h2 = await seedHome(t, u.token, 'Two');
    const d1 = await seedDevice(t, { homeId: h1 });
    const d2 = await seedDevice(t, { homeId: h2 });
    await seedDevice(t); // homeless: not the user's
    const r = await t.req('GET', '/devices', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.map((d: any) => d.id)).toEqual([d1.id, d2.id]);
    expect(r.body[0]).not.toHaveProperty('apiKey');
    const one = await t.req('GET', `/devices?homeId=${h2}`, { token: u.token });
    expect(one.body.map((d: any) => d.id)).toEqual([d2.id]);
  });

  it('updates name, description and tag, and accepts read-only fields sent back unchanged', async () => {
    const d = await seedDevice(t, { name: 'Old' });
    const read = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    const r = await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { ...read, name: 'New', description: 'Kitchen', tag: 'X' } });
    expectSpecStatus('updateDeviceInfo', r.status, 204);
    expect(r.status).toBe(204);
    const after = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    expect(after).toMatchObject({ name: 'New', description: 'Kitchen', tag: 'X' });
    // null clears a writable field
    await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { description: null } });
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body).not.toHaveProperty('description');
  });

  it('lets a home member rename a device of its home', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId });
    const read = (await t.req('GET', `/devices/${d.id}`, { token: u.token })).body;
    const r = await t.req('PATCH', `/devices/${d.id}`, { token: u.token, body: { ...read, name: 'Mine' } });
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: u.token })).body.name).toBe('Mine');
  });

  it('lets a project key move a device between homes, out of a home, and set its claim code', async () => {
    const d = await seedDevice(t);
    const h = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'H', projectId: 1 } });
    expect((await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { homeId: h.body.id } })).status).toBe(204);
    const moved = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    expect(moved.homeId).toBe(h.body.id);
    expect(moved.claimTime).toMatch(ISO_MS);
    expect((await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { homeId: null, claimCode: 'MY-OWN-CODE-1' } })).status).toBe(204);
    const out = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    expect(out).not.toHaveProperty('homeId');
    expect(out.claimCode).toBe('MY-OWN-CODE-1');
    // the new code claims it once its window is open again
    await t.req('POST', '/deviceRegistration', { token: d.apiKey, body: { deviceId: d.id, claimable: true, duration: 60 } });
    const claimed = await t.req('POST', '/devices', { token: t.adminKey, body: { claimCode: 'my own code 1', homeId: h.body.id } });
    expect(claimed.status).toBe(201);
  });

  it('sets the tag as the device itself, a member or a project key', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId });
    for (const [token, tag] of [
      [d.apiKey, 'by-device'],
      [u.token, 'by-member'],
      [t.adminKey, 'by-key'],
    ]) {
      const r = await t.req('PUT', `/devices/${d.id}/tag`, { token, body: { tag } });
      expectSpecStatus('updateDeviceTag', r.status, 204);
      expect(r.status).toBe(204);
      expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body.tag).toBe(tag);
    }
  });

  it('records a firmware installation and serves the config schemas of its components', async () => {
    const d = await seedDevice(t);
    const empty = await t.req('GET', `/devices/${d.id}/configSchemas`, { token: d.apiKey });
    expectSpecStatus('getDeviceConfigurationSchemas', empty.status, 200);
    expect(empty.body).toEqual([]);
    const schema = [{ key: 'interval', type: 'number' }];
    const bundleId = await seedBundle(t, {
      components: [
        { componentName: 'core', componentVersionName: '1.2.0', deviceConfigSchema: schema, url: 'https://fw.example/core.bin' },
        { componentName: 'radio', componentVersionName: '0.9' },
      ],
    });
    const r = await t.req('PUT', `/devices/${d.id}/bundle`, { token: d.apiKey, body: { bundleId } });
    expectSpecStatus('recordFirmwareInstallation', r.status, 204);
    expect(r.status).toBe(204);
    const dev = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    expect(dev.bundleInstalled).toBe(bundleId);
    expect(dev.bundleInstallTime).toMatch(ISO_MS);
    const cs = await t.req('GET', `/devices/${d.id}/configSchemas`, { token: t.adminKey });
    expect(cs.body).toEqual([
      { componentName: 'core', componentVersionName: '1.2.0', deviceConfigSchema: schema },
      { componentName: 'radio', componentVersionName: '0.9', deviceConfigSchema: [] },
    ]);
    expect(cs.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
  });

  it('deletes a device for a project key: record, KV store, key, and a revoke on the bus', async () => {
    const d = await seedDevice(t);
    await t.deps.store.kv.set('device', d.id, 'color', 'red', new Date().toISOString(), 1000);
    const revokes: unknown[] = [];
    onTestFinished(t.deps.bus.subscribe('revoke', (m) => revokes.push(m)));
    const r = await t.req('DELETE', `/devices/${d.id}`, { token: t.adminKey });
    expectSpecStatus('deleteDevice', r.status, 204);
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.deps.store.kv.list('device', d.id)).items).toEqual([]);
    expect((await t.req('GET', '/auth', { token: d.apiKey })).status).toBe(401);
    expect(revokes).toContainEqual({ kind: 'device', deviceId: d.id });
  });

  it('only takes a device out of the home when a member deletes it', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId });
    const r = await t.req('DELETE', `/devices/${d.id}`, { token: u.token });
    expect(r.status).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: u.token })).status).toBe(404);
    const still = await t.req('GET', `/devices/${d.id}`, { token: t.adminKey });
    expect(still.status).toBe(200);
    expect(still.body).not.toHaveProperty('homeId');
  });

  it('refuses to delete a device a registered blocker says is in use (409 DEVICE_IN_USE)', async () => {
    const blocking = new Set<number>();
    const blocker = async (_deps: unknown, dev: { id: number }) => {
      if (blocking.has(dev.id)) throw new AppError('DEVICE_IN_USE', { deviceId: dev.id, by: 'test' });
    };
    const api = await makeTestApi({ deviceDeletion: { blockers: [blocker] } });
    onTestFinished(() => api.close());
    const d = await seedDevice(api);
    blocking.add(d.id);
    const r = await api.req('DELETE', `/devices/${d.id}`, { token: api.adminKey });
    expectSpecStatus('deleteDevice', r.status, 204);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ reason: 'DEVICE_IN_USE', data: { deviceId: d.id, by: 'test' } });
    expect((await api.req('GET', `/devices/${d.id}`, { token: api.adminKey })).status).toBe(200);
  });

  it('runs registered cleanups after a deletion; a failing one is logged and does not undo it', async () => {
    const cleaned: number[] = [];
    const ok = async (_deps: unknown, dev: { id: number }) => void cleaned.push(dev.id);
    const broken = async () => {
      throw new Error('disk on fire');
    };
    const api = await makeTestApi({ deviceDeletion: { cleanups: [broken, ok] } });
    onTestFinished(() => api.close());
    const d = await seedDevice(api);
    expect((await api.req('DELETE', `/devices/${d.id}`, { token: api.adminKey })).status).toBe(204);
    expect(cleaned).toEqual([d.id]);
    const logs = (await api.deps.store.logs.list({ projectId: 1, level: 2 }, { skip: 0, limit: 100 })).items.map((l) => l.text);
    expect(logs).toContain(`cleanup after deleting device ${d.id} failed: disk on fire`);
  });

  it('writes the general log when devices are created, claimed and deleted', async () => {
    const d = await seedDevice(t);
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    await t.req('POST', '/devices', { token: u.token, body: { claimCode: d.claimCode, homeId } });
    await t.req('DELETE', `/devices/${d.id}`, { token: t.adminKey });
    const texts = (await t.deps.store.logs.list({ projectId: 1 }, { skip: 0, limit: 1000 })).items.map((l) => l.text);
    expect(texts).toContain(`device ${d.id} created (class default)`);
    expect(texts).toContain(`device ${d.id} claimed into home ${homeId}`);
    expect(texts).toContain(`device ${d.id} deleted`);
  });
});
