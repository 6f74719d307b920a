// The read cache of the auth and device lookups (src/adapters/sql/read-cache.ts) may never be
// seen: a revoked key, an ended session, a deleted user or device, a changed device must be
// answered as such by the very next request. Each case first uses the credential or row twice, so
// it is cached, then changes it and asks again. SQLite here; the PostgreSQL / second node cases
// are in read-cache.postgres.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedKey, seedUser } from '../../helpers/seed.js';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { withReadCache } from '../../../src/adapters/sql/read-cache.js';
import { sqliteChangeFeed } from '../../../src/adapters/sql/change-feed.js';
import { generateToken } from '../../helpers/credentials.js';

describe('read cache: the next request sees every change', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const twice = async (path: string, token: string) => {
    expect((await t.req('GET', path, { token })).status).toBe(200);
    expect((await t.req('GET', path, { token })).status).toBe(200);
  };

  it('refuses a project key on the first request after it is revoked', async () => {
    const k = (await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body: { name: 'soon gone', scopes: ['devices'] } })).body;
    const d = await seedDevice(t);
    await twice(`/devices/${d.id}`, k.key);
    expect((await t.req('DELETE', `/projects/1/apiKeys/${k.id}`, { token: t.adminKey })).status).toBe(204);
    const r = await t.req('GET', `/devices/${d.id}`, { token: k.key });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });

  it('refuses a session on the first request after sign-out', async () => {
    const u = await seedUser(t);
    await twice('/userSession', u.token);
    expect((await t.req('DELETE', '/userSession', { token: u.token })).status).toBe(204);
    expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(401);
  });

  it("refuses a deleted user's sessions on the first request after", async () => {
    const u = await seedUser(t);
    await twice('/userSession', u.token);
    expect((await t.req('DELETE', `/users/${u.userId}`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(401);
  });

  it("ends a user's other sessions on the first request after a new password", async () => {
    const u = await seedUser(t);
    const other = (await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).body.token;
    await twice('/userSession', other);
    const me = (await t.req('GET', `/users/${u.userId}`, { token: u.token })).body;
    const changed = await t.req('PATCH', `/users/${u.userId}`, {
      token: u.token,
      body: { ...me, password: 'a brand new password', currentPassword: u.password },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(204);
    expect((await t.req('GET', '/userSession', { token: other })).status).toBe(401);
    expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(200);
  });

  it("applies a user's new canCreateDevices from the next request", async () => {
    const u = await seedUser(t, { canCreateDevices: false });
    const create = () => t.req('POST', '/devices', { token: u.token, body: { projectId: 1, deviceClass: 'default' } });
    expect((await create()).status).toBe(403);
    expect((await create()).status).toBe(403);
    const me = (await t.req('GET', `/users/${u.userId}`, { token: t.adminKey })).body;
    expect((await t.req('PATCH', `/users/${u.userId}`, { token: t.adminKey, body: { ...me, canCreateDevices: true } })).status).toBe(204);
    expect((await create()).status).toBe(201);
  });

  it('reads back a device changed through the API, by key and by the device itself', async () => {
    const d = await seedDevice(t, { name: 'before' });
    await twice(`/devices/${d.id}`, t.adminKey);
    await twice(`/devices/${d.id}`, d.apiKey);
    const patched = await t.req('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { name: 'after', tag: 'T-2' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body).toMatchObject({ name: 'after', tag: 'T-2' });
    expect((await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).body).toMatchObject({ name: 'after', tag: 'T-2' });
    expect((await t.req('PUT', `/devices/${d.id}/tag`, { token: d.apiKey, body: { tag: 'T-3' } })).status).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).body.tag).toBe('T-3');
  });

  it("refuses a deleted device's key and answers 404 for it on the first request after", async () => {
    const d = await seedDevice(t);
    await twice(`/devices/${d.id}`, d.apiKey);
    await twice(`/devices/${d.id}`, t.adminKey);
    expect((await t.req('DELETE', `/devices/${d.id}`, { token: t.adminKey })).status).toBe(204);
    expect((await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).status).toBe(401);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).status).toBe(404);
  });

  it('shows presence written by the broker (through the store) at once', async () => {
    const d = await seedDevice(t);
    await twice(`/devices/${d.id}`, t.adminKey);
    const time = new Date().toISOString();
    await t.deps.store.devices.setConnected(d.id, true, time);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body).toMatchObject({ isConnected: true, lastConnectTime: time });
    await t.deps.store.devices.markAllOffline(time);
    expect((await t.req('GET', `/devices/${d.id}`, { token: t.adminKey })).body.isConnected).toBe(false);
  });

  describe('another connection to the same database (the admin CLI)', () => {
    let other: SqlStore;
    beforeAll(async () => {
      other = await createSqlStore({ url: (t.deps.store as SqlStore).sql.sqlite!.name });
    });
    afterAll(() => other.close());

    it('refuses a key it revoked on the next request', async () => {
      const { key, keyId } = await seedKey(t, 1, ['devices']);
      const d = await seedDevice(t);
      await twice(`/devices/${d.id}`, key);
      expect(await other.apiKeys.delete(keyId)).toBe(true);
      expect((await t.req('GET', `/devices/${d.id}`, { token: key })).status).toBe(401);
    });

    it('shows a device it changed on the next request', async () => {
      const d = await seedDevice(t, { name: 'mine' });
      await twice(`/devices/${d.id}`, d.apiKey);
      await other.devices.update(d.id, { name: 'changed elsewhere' });
      expect((await t.req('GET', `/devices/${d.id}`, { token: d.apiKey })).body.name).toBe('changed elsewhere');
    });

    it('refuses a session it ended, also right after one of our own writes', async () => {
      const u = await seedUser(t);
      await twice('/userSession', u.token);
      await other.sessions.delete(hashToken(u.token));
      expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(401);
    });
  });
});

describe('read cache: the store', () => {
  let t: TestApi;
  let store: SqlStore;
  beforeAll(async () => {
    t = await makeTestApi();
    store = t.deps.store as SqlStore;
  });
  afterAll(() => t.close());

  const newKey = async () => {
    const key = generateToken('pk.');
    const id = `k-${Math.random().toString(36).slice(2)}`;
    await store.apiKeys.create({ id, projectId: 1, name: 'k', scopes: ['devices'], keyHash: hashToken(key), creationTime: new Date().toISOString() });
    return { id, hash: hashToken(key) };
  };

  it('keeps the row when the transaction that deleted it rolls back, and drops it when one commits', async () => {
    const k = await newKey();
    expect((await store.apiKeys.getByHash(k.hash))?.id).toBe(k.id);
    await expect(
      store.transaction(async (tx) => {
        await tx.apiKeys.delete(k.id);
        expect(await tx.apiKeys.getByHash(k.hash)).toBeUndefined();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await store.apiKeys.getByHash(k.hash))?.id).toBe(k.id);
    await store.transaction(async (tx) => {
      await tx.apiKeys.delete(k.id);
    });
    expect(await store.apiKeys.getByHash(k.hash)).toBeUndefined();
  });

  it('does not keep what a lookup read while the row was being deleted', async () => {
    const k = await newKey();
    const during = store.apiKeys.getByHash(k.hash);
    await store.apiKeys.delete(k.id);
    await during;
    expect(await store.apiKeys.getByHash(k.hash)).toBeUndefined();
  });

  it('does not keep a row read before a write that finished while the lookup was still on its way', async () => {
    // the same database under a cache of its own, whose key lookups are held after reading
    const inner = await createSqlStore({ url: store.sql.sqlite!.name, readCache: false });
    let release!: () => void;
    let readDone!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const read = new Promise<void>((r) => (readDone = r));
    const getByHash = async (h: string) => {
      const row = await inner.apiKeys.getByHash(h);
      readDone();
      await held;
      return row;
    };
    const slow = { ...inner, apiKeys: { ...inner.apiKeys, getByHash } } as SqlStore;
    const cached = withReadCache(slow, (sink) => sqliteChangeFeed(inner.sql.sqlite!, sink));
    try {
      const k = await newKey();
      const during = cached.apiKeys.getByHash(k.hash);
      await read;
      expect(await cached.apiKeys.delete(k.id)).toBe(true);
      release();
      expect((await during)?.id).toBe(k.id);
      expect(await cached.apiKeys.getByHash(k.hash)).toBeUndefined();
    } finally {
      release();
      await cached.close();
    }
  });

  it('finds a device by its new key and not its old one after the key changes', async () => {
    const d = await seedDevice(t);
    const oldHash = hashToken(d.apiKey);
    expect((await store.devices.getByKeyHash(oldHash))?.id).toBe(d.id);
    const newHash = hashToken(generateToken('dk.'));
    await store.devices.update(d.id, { apiKeyHash: newHash });
    expect(await store.devices.getByKeyHash(oldHash)).toBeUndefined();
    expect((await store.devices.getByKeyHash(newHash))?.id).toBe(d.id);
  });

  it('hands out copies: changing a row it returned changes nothing it returns later', async () => {
    const d = await seedDevice(t, { name: 'original' });
    const k = await newKey();
    for (let i = 0; i < 2; i++) {
      // the first answer filled the cache, the second came from it
      const row = (await store.devices.get(d.id))!;
      row.name = 'scribbled';
      const key = (await store.apiKeys.getByHash(k.hash))!;
      key.scopes.push('admin');
    }
    expect((await store.devices.get(d.id))?.name).toBe('original');
    expect((await store.apiKeys.getByHash(k.hash))?.scopes).toEqual(['devices']);
  });

  it('peeks only at rows it holds, hands out copies, and knows nothing once a row changes or inside a transaction', async () => {
    const d = await seedDevice(t, { name: 'peeked' });
    const k = await newKey();
    const dHash = hashToken(d.apiKey);
    // nothing looked up yet: nothing to peek at, the store must be asked
    expect(store.apiKeys.peekByHash!(k.hash)).toBeUndefined();
    expect(store.devices.peek!(d.id)).toBeUndefined();
    expect(store.devices.peekByKeyHash!(dHash)).toBeUndefined();
    await store.apiKeys.getByHash(k.hash);
    await store.devices.getByKeyHash(dHash);
    expect(store.apiKeys.peekByHash!(k.hash)?.id).toBe(k.id);
    expect(store.devices.peekByKeyHash!(dHash)?.id).toBe(d.id);
    const row = store.devices.peek!(d.id)!;
    expect(row.name).toBe('peeked');
    row.name = 'scribbled';
    store.apiKeys.peekByHash!(k.hash)!.scopes.push('admin');
    expect(store.devices.peek!(d.id)?.name).toBe('peeked');
    expect(store.apiKeys.peekByHash!(k.hash)?.scopes).toEqual(['devices']);
    // a transaction's view reads its own writes from the store: it has no peek
    await store.transaction(async (tx) => {
      expect(tx.apiKeys.peekByHash).toBeUndefined();
      expect(tx.devices.peek).toBeUndefined();
    });
    // a write through this store, and one by another connection, each leave nothing to peek at
    await store.devices.update(d.id, { name: 'renamed' });
    expect(store.devices.peek!(d.id)).toBeUndefined();
    expect(store.devices.peekByKeyHash!(dHash)).toBeUndefined();
    expect(store.apiKeys.peekByHash!(k.hash)?.id).toBe(k.id);
    const other = await createSqlStore({ url: store.sql.sqlite!.name, readCache: false });
    try {
      await other.apiKeys.delete(k.id);
    } finally {
      await other.close();
    }
    expect(store.apiKeys.peekByHash!(k.hash)).toBeUndefined();
    expect(await store.apiKeys.getByHash(k.hash)).toBeUndefined();
  });
});
