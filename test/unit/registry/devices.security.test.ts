// Who may see and touch which device (docs/api.md#credentials): other projects, other homes, other devices,
// revoked and under-scoped keys, forged read-only fields, hidden secrets, and single-use tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/seed.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import type { SpecOperation } from '../../../src/protocol/spec-statuses.js';
import { generateToken } from '../../helpers/credentials.js';

describe('devices: security', () => {
  let t: TestApi;
  let other: { projectId: number; key: string };
  let dev: Awaited<ReturnType<typeof seedDevice>>;
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t);
    dev = await seedDevice(t, { name: 'victim' });
  });
  afterAll(() => t.close());

  describe('credentials', () => {
    const routes: [string, string, SpecOperation, unknown?][] = [
      ['GET', '/devices', 'getAllDevices'],
      ['POST', '/devices', 'addDeviceHome'],
      ['GET', '/devices/1', 'getDeviceInfo'],
      ['PATCH', '/devices/1', 'updateDeviceInfo', { name: 'x' }],
      ['DELETE', '/devices/1', 'deleteDevice'],
      ['PUT', '/devices/1/tag', 'updateDeviceTag', { tag: 'x' }],
      ['PUT', '/devices/1/bundle', 'recordFirmwareInstallation', { bundleId: 'x' }],
      ['GET', '/devices/1/configSchemas', 'getDeviceConfigurationSchemas'],
    ];
    for (const [method, path, spec, body] of routes) runCommonRouteTests(() => t, { method, path: () => path, spec, body: body ? () => body : undefined });
  });

  /** every device operation a caller might try on one device, with the statuses it must get */
  const allOps = (id: number): [string, string, SpecOperation, unknown?][] => [
    ['GET', `/devices/${id}`, 'getDeviceInfo'],
    ['PATCH', `/devices/${id}`, 'updateDeviceInfo', { name: 'pwned' }],
    ['DELETE', `/devices/${id}`, 'deleteDevice'],
    ['PUT', `/devices/${id}/tag`, 'updateDeviceTag', { tag: 'pwned' }],
    ['PUT', `/devices/${id}/bundle`, 'recordFirmwareInstallation', { bundleId: 'x' }],
    ['GET', `/devices/${id}/configSchemas`, 'getDeviceConfigurationSchemas'],
  ];

  async function expectHidden(token: string, id: number) {
    for (const [method, path, spec, body] of allOps(id)) {
      const r = await t.req(method, path, { token, body });
      expectSpecStatus(spec, r.status, 200);
      expect(r.status, `${method} ${path}`).toBe(spec === 'getDeviceConfigurationSchemas' ? 403 : 404);
      expect(r.body.reason, `${method} ${path}`).toBe('DEVICE_NOT_FOUND');
    }
    const still = await t.req('GET', `/devices/${id}`, { token: t.adminKey });
    expect(still.body.name).not.toBe('pwned');
    expect(still.body.tag).not.toBe('pwned');
  }

  it("hides project 1's devices from another project's admin key", async () => {
    await expectHidden(other.key, dev.id);
    const list = await t.req('GET', '/devices', { token: other.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const asked = await t.req('GET', '/devices?projectId=1', { token: other.key });
    expectSpecStatus('getAllDevices', asked.status, 200);
    expect(asked.status).toBe(403);
    expect(asked.body.reason).toBe('PERMISSION_DENIED');
    const create = await t.req('POST', '/devices', { token: other.key, body: { projectId: 1, deviceClass: 'default' } });
    expect(create.status).toBe(403);
    expect(create.body.reason).toBe('PERMISSION_DENIED');
  });

  it("does not let another project claim project 1's device with its code", async () => {
    const d = await seedDevice(t);
    const home = await t.req('POST', '/homes', { token: other.key, body: { name: 'Thief', projectId: other.projectId } });
    const r = await t.req('POST', '/devices', { token: other.key, body: { claimCode: d.claimCode, homeId: home.body.id } });
    expectSpecStatus('addDeviceHome', r.status, 201);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'DEVICE_NOT_CLAIMABLE' });
    // nor into a home of project 1 it cannot see
    const mine = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'Mine', projectId: 1 } });
    const r2 = await t.req('POST', '/devices', { token: other.key, body: { claimCode: d.claimCode, homeId: mine.body.id } });
    expect(r2.status).toBe(403);
    expect(r2.body.reason).toBe('HOME_NOT_FOUND');
  });

  it("hides a home's devices from a user of another home", async () => {
    const owner = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, owner.token);
    const d = await seedDevice(t, { homeId });
    const stranger = await seedUser(t, { canCreateDevices: true });
    await seedHome(t, stranger.token);
    await expectHidden(stranger.token, d.id);
    expect((await t.req('GET', '/devices', { token: stranger.token })).body).toEqual([]);
    expect((await t.req('GET', `/devices?homeId=${homeId}`, { token: stranger.token })).body).toEqual([]);
    // nor may it create a device into, or claim one into, that home
    const into = await t.req('POST', '/devices', { token: stranger.token, body: { projectId: 1, deviceClass: 'default', homeId } });
    expect(into.status).toBe(403);
    expect(into.body.reason).toBe('HOME_NOT_FOUND');
    const spare = await seedDevice(t);
    const claim = await t.req('POST', '/devices', { token: stranger.token, body: { claimCode: spare.claimCode, homeId } });
    expect(claim.status).toBe(403);
    expect(claim.body.reason).toBe('HOME_NOT_FOUND');
  });

  it('confines a device key to its own device, read and tag only', async () => {
    const mine = await seedDevice(t);
    await expectHidden(mine.apiKey, dev.id);
    const list = await t.req('GET', '/devices', { token: mine.apiKey });
    expectSpecStatus('getAllDevices', list.status, 200);
    expect(list.status).toBe(403);
    expect(list.body.reason).toBe('PERMISSION_DENIED');
    for (const [method, body, spec] of [
      ['PATCH', { name: 'x' }, 'updateDeviceInfo'],
      ['DELETE', undefined, 'deleteDevice'],
    ] as const) {
      const r = await t.req(method, `/devices/${mine.id}`, { token: mine.apiKey, body });
      expectSpecStatus(spec, r.status, 204);
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
    const create = await t.req('POST', '/devices', { token: mine.apiKey, body: { projectId: 1, deviceClass: 'default' } });
    expect(create.body.reason).toBe('PERMISSION_DENIED');
  });

  it('refuses a revoked project key with 401', async () => {
    const { key, keyId } = await seedKey(t, 1, ['devices']);
    expect((await t.req('GET', `/devices/${dev.id}`, { token: key })).status).toBe(200);
    expect((await t.req('DELETE', `/projects/1/apiKeys/${keyId}`, { token: t.adminKey })).status).toBe(204);
    const r = await t.req('GET', `/devices/${dev.id}`, { token: key });
    expectSpecStatus('getDeviceInfo', r.status, 200);
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('refuses a project key without the devices scope with 403 PERMISSION_DENIED', async () => {
    const { key } = await seedKey(t, 1, ['users', 'kv']);
    for (const [method, path, spec, body] of [
      ['GET', '/devices', 'getAllDevices'],
      ['POST', '/devices', 'addDeviceHome', { projectId: 1, deviceClass: 'default' }],
      ...allOps(dev.id),
    ] as [string, string, SpecOperation, unknown?][]) {
      const r = await t.req(method, path, { token: key, body });
      expectSpecStatus(spec, r.status, 200);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
  });

  it('refuses a user without canCreateDevices creating a device', async () => {
    const u = await seedUser(t);
    const r = await t.req('POST', '/devices', { token: u.token, body: { projectId: 1, deviceClass: 'default' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
  });

  it('refuses forged read-only fields with READ_ONLY_FIELD naming them, and changes nothing', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId, name: 'keep' });
    const otherHome = await seedHome(t, u.token, 'other');
    const forged: [string, Record<string, unknown>, string[]][] = [
      [t.adminKey, { id: 999, name: 'x' }, ['id']],
      [t.adminKey, { projectId: other.projectId, deviceClass: 'cam' }, ['projectId', 'deviceClass']],
      [t.adminKey, { apiKey: 'dk.mine', bundleInstalled: 'fw', claimTime: new Date().toISOString() }, ['apiKey', 'claimTime', 'bundleInstalled']],
      [u.token, { homeId: otherHome }, ['homeId']],
      [u.token, { homeId: null }, ['homeId']],
      [u.token, { apiKey: d.apiKey }, ['apiKey']],
      [u.token, { claimCode: 'NEW-CODE-1234' }, ['claimCode']],
      [u.token, { creationTime: '2000-01-01T00:00:00.000Z', channel: 'x' }, ['creationTime', 'channel']],
    ];
    for (const [token, body, fields] of forged) {
      const r = await t.req('PATCH', `/devices/${d.id}`, { token, body });
      expectSpecStatus('updateDeviceInfo', r.status, 204);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('READ_ONLY_FIELD');
      expect([...r.body.data.fields].sort()).toEqual([...fields].sort());
    }
    const after = (await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body;
    expect(after).toMatchObject({ id: d.id, name: 'keep', homeId, apiKey: d.apiKey, claimCode: d.claimCode, projectId: 1, deviceClass: 'default' });
  });

  it('never shows apiKey or claimCode to users or devices, in any answer', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t);
    const claimed = await t.req('POST', '/devices', { token: u.token, body: { claimCode: d.claimCode, homeId } });
    const answers = [
      claimed.body,
      (await t.req('GET', `/devices/${d.id}`, { token: u.token })).body,
      ...(await t.req('GET', '/devices', { token: u.token })).body,
      (await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).body,
    ];
    for (const a of answers) {
      expect(a.id).toBe(d.id);
      expect(JSON.stringify(a)).not.toContain(d.apiKey);
      expect(JSON.stringify(a)).not.toContain(d.claimCode);
    }
  });

  it('accepts a provisioning token once; a used, expired or unknown one is 403 INVALID_TOKEN', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const pt = (await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default' } })).body.token;
    // a failed attempt (unknown class) does not burn the token
    const bad = await t.req('POST', '/devices', { body: { token: pt, deviceClass: 'nope' } });
    expect(bad.body.reason).toBe('UNKNOWN_DEVICE_CLASS');
    expect((await t.req('POST', '/devices', { body: { token: pt } })).status).toBe(201);
    const expiredToken = generateToken('pt.');
    await t.deps.store.provisioningTokens.create({
      tokenHash: hashToken(expiredToken),
      projectId: 1,
      homeId,
      deviceClass: 'default',
      deviceTag: null,
      expirationTime: new Date(Date.now() - 1000).toISOString(),
      usedTime: null,
    });
    for (const token of [pt, expiredToken, generateToken('pt.'), 'not even a token']) {
      const r = await t.req('POST', '/devices', { body: { token } });
      expectSpecStatus('addDeviceHome', r.status, 201);
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_TOKEN');
    }
  });

  it('refuses a provisioning token whose home was deleted since', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const pt = (await t.req('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default' } })).body.token;
    expect((await t.req('DELETE', `/homes/${homeId}`, { token: u.token })).status).toBe(204);
    const r = await t.req('POST', '/devices', { body: { token: pt } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('does not let a claim code be used twice', async () => {
    const d = await seedDevice(t);
    const a = await seedUser(t);
    const b = await seedUser(t);
    const homeA = await seedHome(t, a.token);
    const homeB = await seedHome(t, b.token);
    expect((await t.req('POST', '/devices', { token: a.token, body: { claimCode: d.claimCode, homeId: homeA } })).status).toBe(201);
    const again = await t.req('POST', '/devices', { token: b.token, body: { claimCode: d.claimCode, homeId: homeB } });
    expect(again.status).toBe(403);
    expect(again.body.reason).toBe('DEVICE_ALREADY_IN_HOME');
    // once the owner lets it go, the window is still closed
    await t.req('DELETE', `/devices/${d.id}`, { token: a.token });
    const later = await t.req('POST', '/devices', { token: b.token, body: { claimCode: d.claimCode, homeId: homeB } });
    expect(later.body.reason).toBe('DEVICE_NOT_CLAIMABLE');
  });

  it('does not resolve a deleted device key, nor a key with a forged prefix', async () => {
    const d = await seedDevice(t);
    await t.req('DELETE', `/devices/${d.id}`, { token: t.adminKey });
    const r = await t.req('GET', `/devices/${d.id}`, { token: d.apiKey });
    expect(r.status).toBe(401);
    const forged = await t.req('GET', `/devices/${dev.id}`, { token: 'pk.' + dev.apiKey.slice(3) });
    expect(forged.status).toBe(401);
  });
});
