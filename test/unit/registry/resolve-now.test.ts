// resolveCallerNow (src/domain/auth/resolve.ts): the caller of a token whose rows the read cache
// holds, without a promise; for anything else (not held, unknown, expired) it answers undefined
// and resolveCaller decides, as it did before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedUser } from '../../helpers/seed.js';
import { resolveCaller, resolveCallerNow } from '../../../src/domain/auth/resolve.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';

describe('resolveCallerNow', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const both = async (token: string) => {
    const now = resolveCallerNow(t.deps, token, hashToken(token), '10.0.0.9');
    return { now, later: await resolveCaller(t.deps, token, '10.0.0.9').catch((e: Error) => e.message) };
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

  it('leaves unknown tokens, other prefixes and expired sessions to resolveCaller', async () => {
    const u = await seedUser(t);
    await both(u.token);
    expect((await both(u.token)).now).toBeDefined();
    // the session expires, written by another connection (the cache learns of it through the feed)
    const other = await createSqlStore({ url: (t.deps.store as SqlStore).sql.sqlite!.name, readCache: false });
    try {
      await other.sql.db.updateTable('sessions').set({ expirationTime: new Date(Date.now() - 1000).toISOString() }).where('tokenHash', '=', hashToken(u.token)).execute();
    } finally {
      await other.close();
    }
    await new Promise((r) => setTimeout(r, 5));
    const expired = await both(u.token);
    expect(expired.now).toBeUndefined();
    expect(expired.later).toBe('INVALID_TOKEN');
    for (const token of ['pk.nosuchkey', 'dk.nosuchkey', 'ut.nosuchtoken', 'xx.other']) {
      const r = await both(token);
      expect(r.now).toBeUndefined();
      expect(r.later).toBe('INVALID_TOKEN');
    }
  });

  it('sees an expiry that only the clock makes: a held session past its time is not a caller', async () => {
    const u = await seedUser(t);
    await both(u.token);
    const held = (t.deps.store as SqlStore).sessions.peekByHash!(hashToken(u.token))!;
    const clock = { now: () => new Date(Date.parse(held.expirationTime) + 1) };
    expect(resolveCallerNow({ ...t.deps, clock }, u.token, hashToken(u.token))).toBeUndefined();
    await expect(resolveCaller({ ...t.deps, clock }, u.token)).rejects.toThrow('INVALID_TOKEN');
  });
});
