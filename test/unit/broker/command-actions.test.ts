// docs/concepts.md#commands: the project setting commandActions. "spec" (the default) refuses MODE's camelCase
// actions with a message naming the value and what is allowed; "mode" accepts them; the setting's
// own values are checked. The device is offline, so an accepted action answers DEVICE_OFFLINE: the
// action check comes first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtures, type Fixtures } from './fixtures.js';

let f: Fixtures;
beforeAll(async () => {
  f = await makeFixtures();
});
afterAll(() => f.t.close());

const send = (action: string) => f.t.req('PUT', `/devices/${f.device.id}/command`, { token: f.t.adminKey, body: { action } });

describe('commandActions', () => {
  it('refuses doEcho in a "spec" project, naming the value and saying in words what is allowed', async () => {
    const r = await send('doEcho');
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    const message: string = r.body.data.issues[0].message;
    expect(r.body.data.issues[0].path).toBe('action');
    expect(message).toContain('"doEcho"');
    expect(message).toContain('lowercase letters, digits');
    expect(message).toContain('commandActions "mode"');
    // a lowercase action passes the check (and meets the offline device)
    expect((await send('do-echo')).body.reason).toBe('DEVICE_OFFLINE');
  });

  it('accepts camelCase actions once the project says "mode", still refusing what MODE refuses', async () => {
    const bad = await f.t.req('PATCH', '/projects/1', { token: f.t.adminKey, body: { commandActions: 'camel' } });
    expect(bad.status).toBe(403);
    expect(JSON.stringify(bad.body)).toContain('camel');
    const on = await f.t.req('PATCH', '/projects/1', { token: f.t.adminKey, body: { commandActions: 'mode' } });
    expect(on.body.commandActions).toBe('mode');
    try {
      for (const action of ['doEcho', 'startDiscovery', 'syncClock', 'getSensorModuleStatus'])
        expect((await send(action)).body.reason, action).toBe('DEVICE_OFFLINE');
      const r = await send('do Echo');
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues[0].message).toContain('"do Echo"');
      expect(r.body.data.issues[0].message).toContain('letters (either case)');
    } finally {
      await f.t.req('PATCH', '/projects/1', { token: f.t.adminKey, body: { commandActions: 'spec' } });
    }
  });
});
