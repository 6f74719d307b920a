// Bad input to the device operations: missing forms, malformed and mistyped bodies, form-encoded
// bodies, ids that are not ids, unknown objects, closed claim windows. Every status observed must
// be one docs/api.md#device-operations lists for the operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedUser } from '../../helpers/seed.js';

describe('devices: errors', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const add = async (body: unknown, token = t.adminKey) => {
    const r = await t.req('POST', '/devices', { token, body });
    expectSpecStatus('addDeviceHome', r.status, 201);
    return r;
  };

  it('answers a body that matches none of the three forms with 403 MISSING_PARAMETERS', async () => {
    expect((await add({})).body.reason).toBe('MISSING_PARAMETERS');
    expect((await add({ name: 'x' })).body.reason).toBe('MISSING_PARAMETERS');
    const noHome = await add({ claimCode: 'ABCD-EFGH-JKLM' });
    expect(noHome.status).toBe(403);
    expect(noHome.body).toMatchObject({ reason: 'MISSING_PARAMETERS', data: { fields: ['homeId'] } });
    expect((await add({ homeId: 1 })).body.data.fields).toEqual(['claimCode']);
    expect((await add({ projectId: 1 })).body.data.fields).toEqual(['deviceClass']);
  });

  it('answers malformed JSON with 403 INVALID_JSON', async () => {
    const r = await t.req('POST', '/devices', { token: t.adminKey, raw: '{"projectId": 1,' });
    expectSpecStatus('addDeviceHome', r.status, 201);
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_JSON');
  });

  it('answers mistyped fields with 403 INVALID_PARAMETERS naming them', async () => {
    const r = await add({ projectId: 'one', deviceClass: 'bad class!' });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(r.body.data.issues.map((i: any) => i.path).sort()).toEqual(['deviceClass', 'projectId']);
    expect((await add({ projectId: 0, deviceClass: 'default' })).body.reason).toBe('INVALID_PARAMETERS');
    expect((await add({ projectId: 1.5, deviceClass: 'default' })).body.reason).toBe('INVALID_PARAMETERS');
    expect((await add({ projectId: 1, deviceClass: 'default', name: 'x'.repeat(257) })).body.reason).toBe('INVALID_PARAMETERS');
    expect((await add({ projectId: 1, deviceClass: 'default', bundleInstalled: '-bad' })).body.reason).toBe('INVALID_PARAMETERS');
    expect((await add([1, 2])).body.reason).toBe('INVALID_PARAMETERS');
  });

  it('does not take long to refuse a long id that nearly matches the documented pattern (no ReDoS)', async () => {
    const start = Date.now();
    const r = await add({ projectId: 1, deviceClass: 'a'.repeat(120) + '!' });
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    // a catastrophic backtrack on 120 characters takes ~2^120 steps: any bound catches it, so the
    // bound is loose enough for a request on a machine busy with other work (below the test's 30 s)
    expect(Date.now() - start).toBeLessThan(20_000);
  });

  it('answers an unknown device class with 403 UNKNOWN_DEVICE_CLASS', async () => {
    const r = await add({ projectId: 1, deviceClass: 'toaster' });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'UNKNOWN_DEVICE_CLASS', data: { deviceClass: 'toaster' } });
  });

  it('accepts a form-encoded body, coercing numbers', async () => {
    const r = await t.req('POST', '/devices', { token: t.adminKey, form: { projectId: '1', deviceClass: 'default', name: 'Form' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ projectId: 1, name: 'Form' });
    const tag = await t.req('PUT', `/devices/${r.body.id}/tag`, { token: t.adminKey, form: { tag: 'from-form' } });
    expect(tag.status).toBe(204);
  });

  it('answers an id that is not a positive integer, or is unknown, as a missing device', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999', '999999']) {
      for (const [method, path, spec, body] of [
        ['GET', `/devices/${id}`, 'getDeviceInfo', undefined],
        ['PATCH', `/devices/${id}`, 'updateDeviceInfo', { name: 'x' }],
        ['DELETE', `/devices/${id}`, 'deleteDevice', undefined],
        ['PUT', `/devices/${id}/tag`, 'updateDeviceTag', { tag: 'x' }],
        ['PUT', `/devices/${id}/bundle`, 'recordFirmwareInstallation', { bundleId: 'x' }],
      ] as const) {
        const r = await t.req(method, path, { token: t.adminKey, body });
        expectSpecStatus(spec, r.status, 200);
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.reason).toBe('DEVICE_NOT_FOUND');
      }
      // docs/api.md#device-operations lists no 404 for getDeviceConfigurationSchemas: 403, same reason
      const cs = await t.req('GET', `/devices/${id}/configSchemas`, { token: t.adminKey });
      expectSpecStatus('getDeviceConfigurationSchemas', cs.status, 200);
      expect(cs.status).toBe(403);
      expect(cs.body.reason).toBe('DEVICE_NOT_FOUND');
    }
  });

  it('refuses mistyped update bodies with 403 INVALID_PARAMETERS', async () => {
    const d = await seedDevice(t);
    for (const body of [{ name: 5 }, { tag: ['x'] }, { homeId: 'home' }, { claimCode: 'short' }, { description: 'x'.repeat(5000) }]) {
      const r = await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body });
      expectSpecStatus('updateDeviceInfo', r.status, 204);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    const bad = await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, raw: 'name=x' });
    expect(bad.body.reason).toBe('INVALID_JSON');
  });

  it('refuses to move a device to an unknown home, or to give it a claim code another device has', async () => {
    const a = await seedDevice(t);
    const b = await seedDevice(t);
    const home = await t.req('PATCH', `/devices/${a.id}`, { token: t.adminKey, body: { homeId: 424242 } });
    expectSpecStatus('updateDeviceInfo', home.status, 204);
    expect(home.status).toBe(404);
    expect(home.body.reason).toBe('HOME_NOT_FOUND');
    const code = await t.req('PATCH', `/devices/${a.id}`, { token: t.adminKey, body: { claimCode: b.claimCode.toLowerCase() } });
    expect(code.status).toBe(403);
    expect(code.body).toEqual({ reason: 'ALREADY_EXISTS', data: { fields: ['claimCode'] } });
  });

  it('refuses a missing or mistyped tag, and a firmware record with a bad or unknown bundle id', async () => {
    const d = await seedDevice(t);
    for (const body of [{}, { tag: 5 }, { tag: null }]) {
      const r = await t.req('PUT', `/devices/${d.id}/tag`, { token: d.apiKey, body });
      expectSpecStatus('updateDeviceTag', r.status, 204);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    for (const bundleId of ['', '.dot', 'a..b!', 7]) {
      const r = await t.req('PUT', `/devices/${d.id}/bundle`, { token: d.apiKey, body: { bundleId } });
      expectSpecStatus('recordFirmwareInstallation', r.status, 204);
      expect(r.body.reason, String(bundleId)).toBe('INVALID_PARAMETERS');
    }
    const unknown = await t.req('PUT', `/devices/${d.id}/bundle`, { token: d.apiKey, body: { bundleId: 'no-such-bundle' } });
    expectSpecStatus('recordFirmwareInstallation', unknown.status, 204);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ reason: 'BUNDLE_NOT_FOUND', data: { bundleId: 'no-such-bundle' } });
  });

  it('refuses unknown codes, closed windows and devices already in a home', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const unknown = await add({ claimCode: 'AAAA-BBBB-CCCC', homeId }, u.token);
    expect(unknown.status).toBe(403);
    expect(unknown.body.reason).toBe('DEVICE_NOT_CLAIMABLE');
    const expired = await seedDevice(t);
    await t.deps.store.devices.update(expired.id, { claimExpirationTime: new Date(Date.now() - 1000).toISOString() });
    expect((await add({ claimCode: expired.claimCode, homeId }, u.token)).body.reason).toBe('DEVICE_NOT_CLAIMABLE');
    const closed = await seedDevice(t);
    await t.req('POST', '/deviceRegistration', { token: closed.apiKey, body: { deviceId: closed.id, claimable: false } });
    expect((await add({ claimCode: closed.claimCode, homeId }, u.token)).body.reason).toBe('DEVICE_NOT_CLAIMABLE');
    const taken = await seedDevice(t, { homeId });
    const r = await add({ claimCode: taken.claimCode, homeId }, u.token);
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('DEVICE_ALREADY_IN_HOME');
  });

  it('refuses bad list queries with 403 INVALID_PARAMETERS', async () => {
    for (const q of ['isConnected=maybe', 'homeId=abc', 'homeId=0', 'homeId=9999999999', 'projectId=-1', 'limit=0', 'limit=20000', 'skip=x']) {
      const r = await t.req('GET', `/devices?${q}`, { token: t.adminKey });
      expectSpecStatus('getAllDevices', r.status, 200);
      expect(r.status, q).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('answers 405 for a method the path does not have', async () => {
    const d = await seedDevice(t);
    const r = await t.req('POST', `/devices/${d.id}/tag`, { token: t.adminKey, body: { tag: 'x' } });
    expect(r.status).toBe(405);
  });
});
