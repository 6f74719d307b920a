// Store contract: homes (listed by project or by member) and home members.
import { describe, expect, it } from 'vitest';
import type { HomeRole, MemberRow, Store } from '../../../src/ports/store.js';
import { all, at, freshStore, ids, newProject, type MakeStore } from './fixtures.js';

const newHome = (store: Store, projectId: number, name = 'Home') => store.homes.create({ projectId, name, creationTime: at(0) });

const member = (homeId: number, userId: number, role: HomeRole = 'member'): MemberRow => ({
  homeId,
  userId,
  role,
  creationTime: at(5),
});

export function homesContract(make: MakeStore): void {
  describe('homes', () => {
    it('creates a home with a new id, reads, renames and deletes it', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const h = await newHome(store, p.id, 'Cabin');
      expect(h).toEqual({ id: expect.any(Number), projectId: p.id, name: 'Cabin', creationTime: at(0) });
      expect(await store.homes.get(h.id)).toEqual(h);
      await store.homes.update(h.id, {});
      await store.homes.update(h.id, { name: 'Lodge' });
      expect(await store.homes.get(h.id)).toEqual({ ...h, name: 'Lodge' });
      expect(await store.homes.delete(h.id)).toBe(true);
      expect(await store.homes.delete(h.id)).toBe(false);
      expect(await store.homes.get(h.id)).toBeUndefined();
    });

    it('lists the homes of one project with their total', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const other = await newProject(store);
      const mine = [await newHome(store, p.id), await newHome(store, p.id), await newHome(store, p.id)];
      await newHome(store, other.id);
      const listed = await store.homes.list({ projectId: p.id }, all);
      expect(listed.total).toBe(3);
      expect(ids(listed.items)).toEqual(ids(mine));
    });

    it('lists the homes a user is a member of', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const other = await newProject(store);
      const [h1, h2, h3] = [await newHome(store, p.id), await newHome(store, p.id), await newHome(store, p.id)];
      const foreign = await newHome(store, other.id);
      await store.members.upsert(member(h1.id, 7, 'owner'));
      await store.members.upsert(member(h3.id, 7));
      await store.members.upsert(member(foreign.id, 7));
      await store.members.upsert(member(h2.id, 8));
      const byUser = await store.homes.list({ userId: 7 }, all);
      expect(byUser.total).toBe(3);
      expect(ids(byUser.items)).toEqual(ids([h1, h3, foreign]));
      const both = await store.homes.list({ projectId: p.id, userId: 7 }, all);
      expect(ids(both.items)).toEqual(ids([h1, h3]));
      expect(await store.homes.list({ userId: 9 }, all)).toEqual({ total: 0, items: [] });
    });

    it('pages homes without overlap, total counting every match', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await newHome(store, p.id));
      const seen = [];
      for (const skip of [0, 2, 4]) {
        const page = await store.homes.list({ projectId: p.id }, { skip, limit: 2 });
        expect(page.total).toBe(5);
        expect(page.items.length).toBe(skip === 4 ? 1 : 2);
        seen.push(...page.items);
      }
      expect(ids(seen)).toEqual(ids(made));
    });

    it('forgets the memberships of a deleted home', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const h = await newHome(store, p.id);
      await store.members.upsert(member(h.id, 7, 'owner'));
      await store.homes.delete(h.id);
      expect(await store.members.homesOf(7)).toEqual([]);
      expect(await store.homes.list({ userId: 7 }, all)).toEqual({ total: 0, items: [] });
    });
  });

  describe('members', () => {
    it('adds a member and reads it back', async () => {
      const store = await freshStore(make);
      const m = member(1, 7, 'owner');
      await store.members.upsert(m);
      expect(await store.members.get(1, 7)).toEqual(m);
      expect(await store.members.get(1, 8)).toBeUndefined();
    });

    it('changes the role when the same member is upserted again', async () => {
      const store = await freshStore(make);
      await store.members.upsert(member(1, 7, 'member'));
      await store.members.upsert(member(1, 7, 'owner'));
      expect((await store.members.get(1, 7))?.role).toBe('owner');
      expect(await store.members.list(1)).toHaveLength(1);
    });

    it('lists the members of one home', async () => {
      const store = await freshStore(make);
      await store.members.upsert(member(1, 9));
      await store.members.upsert(member(1, 7, 'owner'));
      await store.members.upsert(member(2, 8));
      const listed = await store.members.list(1);
      expect(listed.map((m) => m.userId).sort()).toEqual([7, 9]);
      expect(listed.find((m) => m.userId === 7)).toEqual(member(1, 7, 'owner'));
    });

    it('tells the homes of a user', async () => {
      const store = await freshStore(make);
      await store.members.upsert(member(3, 7));
      await store.members.upsert(member(1, 7, 'owner'));
      await store.members.upsert(member(2, 8));
      expect((await store.members.homesOf(7)).sort()).toEqual([1, 3]);
      expect(await store.members.homesOf(99)).toEqual([]);
    });

    it('removes a member once', async () => {
      const store = await freshStore(make);
      await store.members.upsert(member(1, 7));
      expect(await store.members.delete(1, 7)).toBe(true);
      expect(await store.members.delete(1, 7)).toBe(false);
      expect(await store.members.get(1, 7)).toBeUndefined();
      expect(await store.members.homesOf(7)).toEqual([]);
    });
  });
}
