// resolveCaller (src/domain/auth/resolve.ts): the caller of a token whose rows the read cache
// holds, without a promise, the same the store gives; for anything else (not held, unknown,
// expired) it asks the store, which decides as it did before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedUser } from '../../helpers/seed.js';
import { resolveCaller } from '../../../src/domain/auth/resolve.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';

/** the caller given at once, else undefined (a promise: the store is asked) */
const atOnce = <T>(r: T | Promise<T>): T | undefined => {
  if (!(r instanceof Promise)) return r;
  r.catch(() => {});
  return undefined;
};

describe('resolveCaller from the read cache', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const both = async (token: string) => {
    const now = atOnce(resolveCaller({ deps: t.deps, input: { token, ip: '10.0.0.9' } }));
    // the store without its read cache answers every lookup from the database
    const { apiKeys, sessions, users, devices } = t.deps.store;
    const store = {
      apiKeys: { getByHash: (h: string) => apiKeys.getByHash(h) },
      sessions: { getByHash: (h: string) => sessions.getByHash(h) },
      users: { get: (id: number) => users.get(id) },
      devices: { getByKeyHash: (h: string) => devices.getByKeyHash(h) },
    } as unknown as typeof t.deps.store;
    const later = await Promise.resolve()
      .then(() => resolveCaller({ deps: { store, clock: t.deps.clock }, input: { token, ip: '10.0.0.9' } }))
      .catch((e: Error) => e.message);
    return { now, later };
  };

  it('answers each kind of credential as resolveCaller does, once its rows are held', async () => {
    const d = await seedDevice(t);
    const u = await seedUser(t);
    for (const token of [d.apiKey, u.token]) {
      // nothing at hand before the first lookup fills the cache
      expect((await both(token)).now).toBeUndefined();
    }
    for (const token of [t.adminKey, d.apiKey, u.token]) {
      const r = await both(token);
      expect(r.now).toBeDefined();
      expect(r.now).toEqual(r.later);
      expect(r.now!.ip).toBe('10.0.0.9');
    }
  });

  it('asks the store about unknown tokens and expired sessions, and refuses other prefixes', async () => {
    const u = await seedUser(t);
    await both(u.token);
    expect((await both(u.token)).now).toBeDefined();
    // the session expires, written by another connection (the cache learns of it through the feed)
    const other = await createSqlStore({ url: (t.deps.store as SqlStore).sql.sqlite!.name, readCache: false });
    try {
      await other.sql.db
        .updateTable('sessions')
        .set({ expirationTime: new Date(Date.now() - 1000).toISOString() })
        .where('tokenHash', '=', hashToken(u.token))
        .execute();
    } finally {
      await other.close();
    }
    await new Promise((r) => setTimeout(r, 5));
    const expired = await both(u.token);
    expect(expired.now).toBeUndefined();
    expect(expired.later).toBe('INVALID_TOKEN');
    for (const token of ['pk.nosuchkey', 'dk.nosuchkey', 'ut.nosuchtoken']) {
      const r = await both(token);
      expect(r.now).toBeUndefined();
      expect(r.later).toBe('INVALID_TOKEN');
    }
    // a token of no known kind needs no lookup: refused at once
    expect(() => resolveCaller({ deps: t.deps, input: { token: 'xx.other' } })).toThrow('INVALID_TOKEN');
  });

  it('sees an expiry that only the clock makes: a held session past its time is not a caller', async () => {
    const u = await seedUser(t);
    await both(u.token);
    const held = (t.deps.store as SqlStore).sessions.peekByHash!(hashToken(u.token))!;
    const clock = { now: () => new Date(Date.parse(held.expirationTime) + 1) };
    const r = resolveCaller({ deps: { ...t.deps, clock }, input: { token: u.token } });
    expect(r).toBeInstanceOf(Promise);
    await expect(r).rejects.toThrow('INVALID_TOKEN');
  });
});
