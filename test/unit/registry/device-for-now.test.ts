// deviceForNow (src/domain/auth/access.ts) decides as deviceFor does whenever it decides at all:
// the same row, or the same refusal. It leaves to deviceFor what needs the store: a device the
// read cache does not hold, and any user caller (membership is read from the store).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/seed.js';
import { deviceFor, deviceForNow, type DeviceAccess } from '../../../src/domain/auth/access.js';
import type { Caller, Scope } from '../../../src/domain/auth/caller.js';

const outcome = (f: () => unknown) => {
  try {
    const r = f() as { id: number } | undefined;
    return r === undefined ? 'not at hand' : `device ${r.id}`;
  } catch (e) {
    return (e as { reason?: string }).reason ?? String(e);
  }
};

describe('deviceForNow', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('gives the row or the refusal deviceFor gives, for every kind of caller it decides for', async () => {
    const a = await seedDevice(t);
    const b = await seedDevice(t);
    // read once: the read cache holds both
    await t.deps.store.devices.get(a.id);
    await t.deps.store.devices.get(b.id);
    const callers: Caller[] = [
      { type: 'project key', projectId: 1, keyId: 'k', keyName: 'k', scopes: ['devices'] },
      { type: 'project key', projectId: 1, keyId: 'k', keyName: 'k', scopes: ['admin'] },
      { type: 'project key', projectId: 1, keyId: 'k', keyName: 'k', scopes: ['kv'] },
      { type: 'project key', projectId: 2, keyId: 'k', keyName: 'k', scopes: ['admin'] },
      { type: 'device', projectId: 1, deviceId: a.id, deviceClass: 'default' },
      { type: 'device', projectId: 1, deviceId: b.id, deviceClass: 'default' },
    ];
    const cases: [DeviceAccess[], Scope][] = [
      [['project key', 'member', 'self'], 'devices'],
      [['project key', 'member'], 'commands'],
      [['self'], 'devices'],
    ];
    const seen = new Set<string>();
    for (const caller of callers) {
      for (const [who, scope] of cases) {
        const now = outcome(() => deviceForNow(t.deps, caller, a.id, who, scope));
        const later = await deviceFor(t.deps, caller, a.id, who, scope).then(
          (r) => `device ${r.id}`,
          (e: { reason?: string }) => e.reason ?? String(e),
        );
        expect(now, `${JSON.stringify(caller)} ${who} ${scope}`).toBe(later);
        seen.add(now);
      }
    }
    // the cases reach every answer
    expect(seen).toEqual(new Set([`device ${a.id}`, 'PERMISSION_DENIED', 'DEVICE_NOT_FOUND']));
    expect(outcome(() => deviceForNow(t.deps, { type: 'nobody' }, a.id, ['self']))).toBe('AUTHORIZATION_REQUIRED');
  });

  it('leaves a device the cache does not hold, and every user caller, to deviceFor', async () => {
    const d = await seedDevice(t);
    const key: Caller = { type: 'project key', projectId: 1, keyId: 'k', keyName: 'k', scopes: ['admin'] };
    // created through the API, never read: not held
    expect(deviceForNow(t.deps, key, d.id, ['project key'])).toBeUndefined();
    expect(deviceForNow(t.deps, key, 999_999, ['project key'])).toBeUndefined();
    await t.deps.store.devices.get(d.id);
    expect(deviceForNow(t.deps, key, d.id, ['project key'])?.id).toBe(d.id);
    const user: Caller = { type: 'user', projectId: 1, userId: 1, tokenHash: 'h', canCreateDevices: false };
    expect(deviceForNow(t.deps, user, d.id, ['member'])).toBeUndefined();
  });
});
