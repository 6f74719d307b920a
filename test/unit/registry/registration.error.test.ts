// Bad bodies for POST /deviceRegistration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/seed.js';

describe('device registration: errors', () => {
  let t: TestApi;
  let d: Awaited<ReturnType<typeof seedDevice>>;
  beforeAll(async () => {
    t = await makeTestApi();
    d = await seedDevice(t);
  });
  afterAll(() => t.close());

  it('requires duration when claimable is true', async () => {
    const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, body: { deviceId: d.id, claimable: true } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'INVALID_PARAMETERS', data: { issues: [{ path: 'duration', message: 'duration is required when claimable is true' }] } });
  });

  it('refuses a duration outside 1 to 86400 seconds, or not whole', async () => {
    for (const duration of [0, -5, 86401, 1.5, '60']) {
      const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, body: { deviceId: d.id, claimable: true, duration } });
      expect(r.status, String(duration)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues[0].path).toBe('duration');
    }
  });

  it('refuses missing or mistyped deviceId and claimable', async () => {
    for (const body of [
      {},
      { deviceId: d.id },
      { claimable: true, duration: 5 },
      { deviceId: 'me', claimable: true, duration: 5 },
      { deviceId: d.id, claimable: 'yes' },
    ]) {
      const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('answers malformed JSON with 403 INVALID_JSON', async () => {
    const r = await t.req('POST', '/deviceRegistration', { token: d.apiKey, raw: '{deviceId:' });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_JSON');
  });
});
