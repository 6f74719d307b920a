// Store contract: projects and project API keys.
import { describe, expect, it } from 'vitest';
import type { ApiKeyRow } from '../../../src/ports/store.js';
import { at, freshStore, newProject, unique, type MakeStore } from './fixtures.js';

const apiKey = (projectId: number, over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id: unique('key'),
  projectId,
  name: 'ci',
  scopes: ['devices', 'kv:read'],
  keyHash: unique('hash'),
  creationTime: at(0),
  ...over,
});

export function projectsContract(make: MakeStore): void {
  describe('projects', () => {
    it('creates a project with a new id and reads it back', async () => {
      const store = await freshStore(make);
      const p = await store.projects.create({ name: 'Acme', creationTime: at(1) });
      expect(p).toEqual({ id: expect.any(Number), name: 'Acme', allowUserSignup: true, verifyEmails: false, commandActions: 'spec', creationTime: at(1) });
      expect(await store.projects.get(p.id)).toEqual(p);
    });

    it('changes the settings given and leaves the others (allowUserSignup, docs/concepts.md)', async () => {
      const store = await freshStore(make);
      const p = await store.projects.create({ name: 'Acme', creationTime: at(1) });
      const other = await store.projects.create({ name: 'Other', creationTime: at(1) });
      await store.projects.update(p.id, { allowUserSignup: false });
      expect(await store.projects.get(p.id)).toEqual({ ...p, allowUserSignup: false });
      await store.projects.update(p.id, { name: 'Renamed' });
      expect(await store.projects.get(p.id)).toEqual({ ...p, name: 'Renamed', allowUserSignup: false });
      await store.projects.update(p.id, { allowUserSignup: true });
      await store.projects.update(p.id, {});
      expect(await store.projects.get(p.id)).toEqual({ ...p, name: 'Renamed' });
      expect(await store.projects.get(other.id)).toEqual(other);
    });

    it('keeps verifyEmails and commandActions (docs/concepts.md#accounts, docs/concepts.md#commands)', async () => {
      const store = await freshStore(make);
      const p = await store.projects.create({ name: 'Acme', creationTime: at(1) });
      await store.projects.update(p.id, { verifyEmails: true, commandActions: 'mode' });
      expect(await store.projects.get(p.id)).toEqual({ ...p, verifyEmails: true, commandActions: 'mode' });
      await store.projects.update(p.id, { commandActions: 'spec' });
      expect(await store.projects.get(p.id)).toEqual({ ...p, verifyEmails: true });
    });

    it('returns undefined for an unknown project', async () => {
      const store = await freshStore(make);
      expect(await store.projects.get(424242)).toBeUndefined();
    });

    it('lists and counts every project', async () => {
      const store = await freshStore(make);
      expect(await store.projects.count()).toBe(0);
      expect(await store.projects.list()).toEqual([]);
      const a = await newProject(store, 'A');
      const b = await newProject(store, 'B');
      expect(a.id).not.toBe(b.id);
      expect(await store.projects.count()).toBe(2);
      expect(await store.projects.list()).toEqual([a, b]);
    });
  });

  describe('apiKeys', () => {
    it('round-trips scopes as an array, by id and by hash', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const k = apiKey(p.id, { scopes: ['devices', 'kv:write', 'logs'] });
      await store.apiKeys.create(k);
      expect(await store.apiKeys.get(k.id)).toEqual(k);
      expect(await store.apiKeys.getByHash(k.keyHash)).toEqual(k);
    });

    it('keeps an empty scope list empty', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const k = apiKey(p.id, { scopes: [] });
      await store.apiKeys.create(k);
      expect((await store.apiKeys.getByHash(k.keyHash))?.scopes).toEqual([]);
    });

    it('returns undefined for an unknown hash or id', async () => {
      const store = await freshStore(make);
      expect(await store.apiKeys.getByHash('nope')).toBeUndefined();
      expect(await store.apiKeys.get('nope')).toBeUndefined();
    });

    it('lists only the keys of the given project', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const other = await newProject(store);
      const k1 = apiKey(p.id, { creationTime: at(1) });
      const k2 = apiKey(p.id, { creationTime: at(2) });
      await store.apiKeys.create(k1);
      await store.apiKeys.create(k2);
      await store.apiKeys.create(apiKey(other.id));
      expect(await store.apiKeys.list(p.id)).toEqual([k1, k2]);
    });

    it('refuses a second key with the same hash', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const k = apiKey(p.id);
      await store.apiKeys.create(k);
      await expect(store.apiKeys.create(apiKey(p.id, { keyHash: k.keyHash }))).rejects.toThrow();
    });

    it('deletes a key once: true, then false, and its hash no longer resolves', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const k = apiKey(p.id);
      await store.apiKeys.create(k);
      expect(await store.apiKeys.delete(k.id)).toBe(true);
      expect(await store.apiKeys.delete(k.id)).toBe(false);
      expect(await store.apiKeys.getByHash(k.keyHash)).toBeUndefined();
      expect(await store.apiKeys.list(p.id)).toEqual([]);
    });
  });
}
