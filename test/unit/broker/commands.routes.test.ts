// PUT /devices/{id}/command (docs/api.md#device-operations sendCommandDevice, docs/concepts.md#devices) through app.request(): who
// may call, validation, DEVICE_OFFLINE, the bus message, the statuses the operation may answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import type { TestApi } from '../../helpers/api.js';
import { makeFixtures, type Fixtures } from './fixtures.js';

let f: Fixtures;
let t: TestApi;
let device: Fixtures['device'];
beforeAll(async () => {
  f = await makeFixtures();
  ({ t, device } = f);
});
afterAll(() => t?.close());

describe('PUT /devices/{id}/command (sendCommandDevice)', () => {
  runCommonRouteTests(() => t, { method: 'PUT', path: () => `/devices/${device.id}/command`, body: () => ({ action: 'go' }), spec: 'sendCommandDevice' });

  it('answers 403 DEVICE_OFFLINE when the device has no live connection', async () => {
    const r = await t.req('PUT', `/devices/${device.id}/command`, { token: t.adminKey, body: { action: 'turn-on' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'DEVICE_OFFLINE', data: { deviceId: device.id } });
  });

  it('publishes {action, parameters} on the bus once the device is connected: 204', async () => {
    await t.deps.presence!.connected(device.id, 'test-conn');
    try {
      const got = f.nextOnBus('command');
      const r = await t.req('PUT', `/devices/${device.id}/command`, { token: t.adminKey, body: { action: 'set-level', parameters: { level: 2 } } });
      expect(r.status).toBe(204);
      expect(await got).toEqual({ deviceId: device.id, command: { action: 'set-level', parameters: { level: 2 } } });
      // a home f.member may send too; parameters default to {}
      const got2 = f.nextOnBus('command');
      expect((await t.req('PUT', `/devices/${device.id}/command`, { token: f.member, body: { action: 'ping' } })).status).toBe(204);
      expect((await got2).command).toEqual({ action: 'ping', parameters: {} });
    } finally {
      await t.deps.presence!.disconnected(device.id, 'test-conn');
    }
  });

  const invalid: [string, unknown][] = [
    ['no action', {}],
    ['an action of two characters', { action: 'ab' }],
    ['an action with capitals', { action: 'TurnOn' }],
    ['an action ending in a dash', { action: 'turn-' }],
    ['parameters that are an array', { action: 'go-on', parameters: [1] }],
    ['parameters that are a string', { action: 'go-on', parameters: 'x' }],
  ];
  for (const [name, body] of invalid) {
    it(`refuses ${name} with 403 INVALID_PARAMETERS`, async () => {
      const r = await t.req('PUT', `/devices/${device.id}/command`, { token: t.adminKey, body });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues.length).toBeGreaterThan(0);
    });
  }

  it('refuses malformed JSON with 403 INVALID_JSON', async () => {
    const r = await t.req('PUT', `/devices/${device.id}/command`, { token: t.adminKey, raw: '{"action":' });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_JSON');
  });

  it('is refused to the device itself, to a key without `commands`, to strangers, and for unknown ids', async () => {
    const events = await f.seedKey(['events']);
    const cases: [string | undefined, string, number, string][] = [
      [device.key, `/devices/${device.id}/command`, 403, 'PERMISSION_DENIED'],
      [events.key, `/devices/${device.id}/command`, 403, 'PERMISSION_DENIED'],
      [f.stranger, `/devices/${device.id}/command`, 404, 'DEVICE_NOT_FOUND'],
      [t.adminKey, '/devices/abc/command', 404, 'DEVICE_NOT_FOUND'],
      [t.adminKey, '/devices/999999/command', 404, 'DEVICE_NOT_FOUND'],
    ];
    for (const [token, path, status, reason] of cases) {
      const r = await t.req('PUT', path, { token, body: { action: 'go-on' } });
      expect([r.status, r.body.reason], path).toEqual([status, reason]);
      expectSpecStatus('sendCommandDevice', r.status, 204);
    }
  });
});
