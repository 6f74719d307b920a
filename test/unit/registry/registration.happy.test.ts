// Update device claimable state (docs/devices.md#claiming-and-provisioning, docs/concepts.md#devices): the device opens and closes its window,
// with JSON or (as real firmware sends it) a form-encoded body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedUser } from '../../helpers/seed.js';

describe('device registration: happy paths', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('opens the claimable window for `duration` seconds (JSON)', async () => {
    const d = await seedDevice(t);
    const before = Date.now();
    const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, body: { deviceId: d.id, claimable: true, duration: 600 } });
    // the window opens while the request runs: between before and after (a loaded machine can
    // take seconds over it), plus 600 s
    const after = Date.now();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['claimExpirationTime']);
    const until = Date.parse(r.body.claimExpirationTime);
    expect(until).toBeGreaterThanOrEqual(before + 599_000);
    expect(until).toBeLessThanOrEqual(after + 600_000);
    expect((await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).body.claimExpirationTime).toBe(r.body.claimExpirationTime);
  });

  it('accepts the form-encoded body device firmware sends', async () => {
    const d = await seedDevice(t);
    const before = Date.now();
    const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, form: { deviceId: String(d.id), claimable: 'true', duration: '30' } });
    expect(r.status).toBe(200);
    // counted from before the request, not from its end (which a loaded machine can delay)
    expect(Date.parse(r.body.claimExpirationTime)).toBeGreaterThanOrEqual(before + 29_000);
  });

  it('closes the window with claimable false, and a reopened window lets a user claim', async () => {
    const d = await seedDevice(t);
    const closed = await t.req('POST', '/deviceRegistration', { token: d.apiKey, form: { deviceId: String(d.id), claimable: 'false' } });
    expect(closed.status).toBe(200);
    expect(Date.parse(closed.body.claimExpirationTime)).toBeLessThanOrEqual(Date.now());
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    expect((await t.req('POST', '/devices', { token: u.token, body: { claimCode: d.claimCode, homeId } })).body.reason).toBe('DEVICE_NOT_CLAIMABLE');
    await t.req('POST', '/deviceRegistration', { token: d.apiKey, body: { deviceId: d.id, claimable: true, duration: 60 } });
    expect((await t.req('POST', '/devices', { token: u.token, body: { claimCode: d.claimCode, homeId } })).status).toBe(201);
  });
});
