// Only the device itself may change its claimable state, and not once it is in a home.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedUser } from '../../helpers/seed.js';

describe('device registration: security', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  runCommonRouteTests(() => t, { method: 'POST', path: () => '/deviceRegistration', body: () => ({ deviceId: 1, claimable: true, duration: 60 }) });

  it('refuses project keys and users: only the device itself', async () => {
    const d = await seedDevice(t);
    const u = await seedUser(t);
    for (const token of [t.adminKey, u.token]) {
      const r = await t.req('POST', '/deviceRegistration', { token, body: { deviceId: d.id, claimable: true, duration: 60 } });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
  });

  it("does not let a device open another device's window", async () => {
    const a = await seedDevice(t);
    const b = await seedDevice(t);
    await t.req('POST', '/deviceRegistration', { token: b.apiKey, body: { deviceId: b.id, claimable: false } });
    const r = await t.req('POST', '/deviceRegistration', { token: a.apiKey, body: { deviceId: b.id, claimable: true, duration: 60 } });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('DEVICE_NOT_FOUND');
    expect(Date.parse((await t.req('GET', `/devices/${b.id}`, { token: t.adminKey })).body.claimExpirationTime)).toBeLessThanOrEqual(Date.now());
  });

  it('refuses a device already in a home with 403 DEVICE_ALREADY_IN_HOME', async () => {
    const u = await seedUser(t, { canCreateDevices: true });
    const homeId = await seedHome(t, u.token);
    const d = await seedDevice(t, { homeId });
    for (const body of [
      { deviceId: d.id, claimable: true, duration: 60 },
      { deviceId: d.id, claimable: false },
    ]) {
      const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, body });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ reason: 'DEVICE_ALREADY_IN_HOME', data: { deviceId: d.id } });
    }
  });
});
