// Store contract: users (unique email per project, search, paging) and sessions.
import { describe, expect, it } from 'vitest';
import type { SessionRow, Store } from '../../../src/ports/store.js';
import { all, at, freshStore, ids, newProject, unique, userInput, type MakeStore } from './fixtures.js';

const session = (userId: number, projectId: number): SessionRow => ({
  tokenHash: unique('token'),
  userId,
  projectId,
  appId: null,
  creationTime: at(0),
  expirationTime: at(3600),
});

async function searchIds(store: Store, projectId: number, search: string): Promise<number[]> {
  return ids((await store.users.list({ projectId, search }, all)).items);
}

export function usersContract(make: MakeStore): void {
  describe('users', () => {
    it('creates a user with a new id and reads it back by id and by email', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const u = await store.users.create(userInput(p.id, { email: 'ana@example.com', canCreateDevices: true }));
      expect(u).toEqual({ ...userInput(p.id, { email: 'ana@example.com', canCreateDevices: true }), id: expect.any(Number) });
      expect(await store.users.get(u.id)).toEqual(u);
      expect(await store.users.getByEmail(p.id, 'ana@example.com')).toEqual(u);
      expect(await store.users.getByEmail(p.id + 1, 'ana@example.com')).toBeUndefined();
    });

    it('throws on a second user with the same email in one project, allows it in another', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const q = await newProject(store);
      await store.users.create(userInput(p.id, { email: 'dup@example.com' }));
      await expect(store.users.create(userInput(p.id, { email: 'dup@example.com' }))).rejects.toThrow();
      await expect(store.users.create(userInput(q.id, { email: 'dup@example.com' }))).resolves.toMatchObject({ projectId: q.id });
    });

    it('searches email and name case-insensitively', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const ana = await store.users.create(userInput(p.id, { email: 'Ana.Lopez@Example.com', name: 'Ana' }));
      const bob = await store.users.create(userInput(p.id, { email: 'bob@example.com', name: 'Robert LOPEZ' }));
      await store.users.create(userInput(p.id, { email: 'carl@example.com', name: 'Carl' }));
      expect(await searchIds(store, p.id, 'lopez')).toEqual(ids([ana, bob]));
      expect(await searchIds(store, p.id, 'ANA.L')).toEqual([ana.id]);
      expect(await searchIds(store, p.id, 'rObErT')).toEqual([bob.id]);
    });

    it('treats % and _ in a search literally', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const under = await store.users.create(userInput(p.id, { email: 'a_b@example.com' }));
      await store.users.create(userInput(p.id, { email: 'axb@example.com' }));
      const pct = await store.users.create(userInput(p.id, { name: '100% Jo' }));
      expect(await searchIds(store, p.id, 'a_b')).toEqual([under.id]);
      expect(await searchIds(store, p.id, '%')).toEqual([pct.id]);
      expect(await searchIds(store, p.id, '0% j')).toEqual([pct.id]);
      expect(await searchIds(store, p.id, '\\')).toEqual([]);
    });

    it('pages through users with the total of all matches', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const other = await newProject(store);
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await store.users.create(userInput(p.id)));
      await store.users.create(userInput(other.id));
      const pages = [];
      for (const skip of [0, 2, 4]) {
        const page = await store.users.list({ projectId: p.id }, { skip, limit: 2 });
        expect(page.total).toBe(5);
        pages.push(...page.items);
      }
      expect(pages.map((u) => u.id)).toHaveLength(5);
      expect(ids(pages)).toEqual(ids(made));
      expect(await store.users.list({ projectId: p.id }, { skip: 5, limit: 2 })).toEqual({ total: 5, items: [] });
    });

    it('updates only the patched fields', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const u = await store.users.create(userInput(p.id));
      await store.users.update(u.id, { name: 'Renamed', canCreateDevices: true });
      expect(await store.users.get(u.id)).toEqual({ ...u, name: 'Renamed', canCreateDevices: true });
      await store.users.update(u.id, {});
      await store.users.update(u.id, { name: undefined, email: undefined });
      await store.users.update(u.id, { name: undefined, canCreateDevices: false });
      expect(await store.users.get(u.id)).toEqual({ ...u, name: 'Renamed', canCreateDevices: false });
    });

    it('deletes a user once', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const u = await store.users.create(userInput(p.id));
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await store.users.delete(u.id)).toBe(false);
      expect(await store.users.get(u.id)).toBeUndefined();
    });
  });

  describe('user codes (docs/concepts.md#accounts)', () => {
    it('a user is verified unless created otherwise, and update changes it', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const { verified: _, ...input } = userInput(p.id);
      expect((await store.users.create(input)).verified).toBe(true);
      const u = await store.users.create(userInput(p.id, { verified: false }));
      expect((await store.users.get(u.id))?.verified).toBe(false);
      await store.users.update(u.id, { verified: true });
      expect((await store.users.get(u.id))?.verified).toBe(true);
    });

    it('takes a code once, only with its hash, its purpose and before it expires', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const u = await store.users.create(userInput(p.id));
      await store.users.setCode(u.id, 'reset', { hash: 'h1', expirationTime: at(3600) });
      expect(await store.users.takeCode(u.id, 'reset', 'wrong', at(0))).toBe(false);
      expect(await store.users.takeCode(u.id, 'verify', 'h1', at(0))).toBe(false);
      expect(await store.users.takeCode(u.id, 'reset', 'h1', at(3600))).toBe(false);
      expect(await store.users.takeCode(u.id, 'reset', 'h1', at(10))).toBe(true);
      expect(await store.users.takeCode(u.id, 'reset', 'h1', at(10))).toBe(false);
      // a new code replaces the one before; null drops it
      await store.users.setCode(u.id, 'verify', { hash: 'a', expirationTime: at(3600) });
      await store.users.setCode(u.id, 'verify', { hash: 'b', expirationTime: at(3600) });
      expect(await store.users.takeCode(u.id, 'verify', 'a', at(0))).toBe(false);
      await store.users.setCode(u.id, 'verify', null);
      expect(await store.users.takeCode(u.id, 'verify', 'b', at(0))).toBe(false);
      // the row as read never shows a code
      expect(Object.keys((await store.users.get(u.id))!).sort()).toEqual(
        ['canCreateDevices', 'creationTime', 'email', 'id', 'name', 'passwordHash', 'projectId', 'verified'].sort(),
      );
    });
  });

  describe('sessions', () => {
    it('stores a session and finds it by token hash', async () => {
      const store = await freshStore(make);
      const s = session(1, 1);
      await store.sessions.create(s);
      expect(await store.sessions.getByHash(s.tokenHash)).toEqual(s);
      expect(await store.sessions.getByHash('unknown')).toBeUndefined();
    });

    it('keeps the appId a session was opened with (docs/concepts.md), and none when none was given', async () => {
      const store = await freshStore(make);
      const s = { ...session(1, 1), appId: 'controller' };
      await store.sessions.create(s);
      expect(await store.sessions.getByHash(s.tokenHash)).toEqual(s);
      const { appId: _none, ...without } = session(1, 1);
      await store.sessions.create(without);
      expect((await store.sessions.getByHash(without.tokenHash))?.appId ?? null).toBeNull();
    });

    it('deletes a session once', async () => {
      const store = await freshStore(make);
      const s = session(1, 1);
      await store.sessions.create(s);
      expect(await store.sessions.delete(s.tokenHash)).toBe(true);
      expect(await store.sessions.delete(s.tokenHash)).toBe(false);
      expect(await store.sessions.getByHash(s.tokenHash)).toBeUndefined();
    });

    it('deletes every session of one user and no other', async () => {
      const store = await freshStore(make);
      const [a1, a2, b] = [session(1, 1), session(1, 1), session(2, 1)];
      for (const s of [a1, a2, b]) await store.sessions.create(s);
      expect((await store.sessions.listForUser(1)).map((s) => s.tokenHash).sort()).toEqual([a1.tokenHash, a2.tokenHash].sort());
      await store.sessions.deleteForUser(1);
      expect(await store.sessions.listForUser(1)).toEqual([]);
      expect(await store.sessions.getByHash(a1.tokenHash)).toBeUndefined();
      expect(await store.sessions.getByHash(a2.tokenHash)).toBeUndefined();
      expect(await store.sessions.getByHash(b.tokenHash)).toEqual(b);
    });
  });
}
