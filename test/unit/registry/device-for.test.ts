// deviceFor (src/domain/auth/access.ts) answers without a promise when the read cache holds the
// device and the caller is not a user, and then decides as the store would: the same row, or the
// same refusal. It returns a promise for what needs the store: a device the read cache does not
// hold, and any user caller (membership is read from the store).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/seed.js';
import { deviceFor, type DeviceAccess } from '../../../src/domain/auth/access.js';
import type { Caller, Scope } from '../../../src/domain/caller.js';
import type { Deps } from '../../../src/domain/deps.js';

/** deviceFor's answer when it gives one at once; 'not at hand' for a promise */
const outcome = (f: () => unknown) => {
  try {
    const r = f() as { id: number } | Promise<unknown>;
    if (r instanceof Promise) {
      r.catch(() => {});
      return 'not at hand';
    }
    return `device ${r.id}`;
  } catch (e) {
    return (e as { reason?: string }).reason ?? String(e);
  }
};

describe('deviceFor from the read cache', () => {
  let t: TestApi;
  /** the same store without its read cache: every answer comes from the database */
  const uncached = () =>
    ({ store: { devices: { get: (id: number) => t.deps.store.devices.get(id) }, members: t.deps.store.members } }) as unknown as Pick<Deps, 'store'>;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('gives at once the row or the refusal the store gives, for every kind of caller it decides for', async () => {
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
        const now = outcome(() => deviceFor(t.deps, caller, a.id, who, scope));
        const later = await Promise.resolve()
          .then(() => deviceFor(uncached(), caller, a.id, who, scope))
          .then(
            (r) => `device ${r.id}`,
            (e: { reason?: string }) => e.reason ?? String(e),
          );
        expect(now, `${JSON.stringify(caller)} ${who} ${scope}`).toBe(later);
        seen.add(now);
      }
    }
    // the cases reach every answer
    expect(seen).toEqual(new Set([`device ${a.id}`, 'PERMISSION_DENIED', 'DEVICE_NOT_FOUND']));
    expect(outcome(() => deviceFor(t.deps, { type: 'nobody' }, a.id, ['self']))).toBe('AUTHORIZATION_REQUIRED');
  });

  it('asks the store for a device the cache does not hold, and for every user caller', async () => {
    const d = await seedDevice(t);
    const key: Caller = { type: 'project key', projectId: 1, keyId: 'k', keyName: 'k', scopes: ['admin'] };
    // created through the API, never read: not held
    expect(outcome(() => deviceFor(t.deps, key, d.id, ['project key']))).toBe('not at hand');
    expect(outcome(() => deviceFor(t.deps, key, 999_999, ['project key']))).toBe('not at hand');
    await t.deps.store.devices.get(d.id);
    expect(outcome(() => deviceFor(t.deps, key, d.id, ['project key']))).toBe(`device ${d.id}`);
    const user: Caller = { type: 'user', projectId: 1, userId: 1, tokenHash: 'h', canCreateDevices: false };
    expect(outcome(() => deviceFor(t.deps, user, d.id, ['member']))).toBe('not at hand');
  });
});
