// Store contract: key-value limits and concurrent writers of one store.
import { describe, expect, it } from 'vitest';
import { KvKeyLimitError } from '../../../src/ports/store.js';
import { at, freshStore, type MakeStore } from './fixtures.js';

export function kvLimitsContract(make: MakeStore): void {
  describe('kv limits and concurrency', () => {
    it('refuses a new key beyond maxKeys with KvKeyLimitError, leaving the store and rev as they were', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 1, at(1), 2);
      await store.kv.set('device', 1, 'b', 2, at(1), 2);
      const refused = store.kv.set('device', 1, 'c', 3, at(2), 2);
      await expect(refused).rejects.toBeInstanceOf(KvKeyLimitError);
      await expect(refused).rejects.toMatchObject({ maxKeys: 2 });
      expect(await store.kv.get('device', 1, 'c')).toBeUndefined();
      expect((await store.kv.list('device', 1)).rev).toBe(2);
    });

    it('overwrites an existing key of a store at its limit', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 1, at(1), 2);
      await store.kv.set('device', 1, 'b', 2, at(1), 2);
      expect(await store.kv.set('device', 1, 'a', 'new', at(2), 2)).toEqual({ rev: 3 });
      expect((await store.kv.get('device', 1, 'a'))?.value).toBe('new');
    });

    it('accepts a new key again once a delete makes room', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 1, at(1), 1);
      await expect(store.kv.set('device', 1, 'b', 1, at(1), 1)).rejects.toBeInstanceOf(KvKeyLimitError);
      await store.kv.delete('device', 1, 'a');
      expect(await store.kv.set('device', 1, 'b', 1, at(2), 1)).toEqual({ rev: 3 });
    });

    it('counts the limit per store, not across owners or scopes', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 1, at(1), 1);
      await expect(store.kv.set('device', 2, 'a', 1, at(1), 1)).resolves.toEqual({ rev: 1 });
      await expect(store.kv.set('home', 1, 'a', 1, at(1), 1)).resolves.toEqual({ rev: 1 });
    });

    it('gives 50 concurrent sets on one store the revs 1..50, each once', async () => {
      const store = await freshStore(make);
      const changes = await Promise.all(Array.from({ length: 50 }, (_, i) => store.kv.set('device', 1, `k${i % 20}`, i, at(i), 100)));
      expect(changes.map((c) => c.rev).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      const listed = await store.kv.list('device', 1);
      expect(listed.rev).toBe(50);
      expect(listed.items).toHaveLength(20);
    });

    it('lets exactly maxKeys of many concurrent new keys in', async () => {
      const store = await freshStore(make);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.kv.set('device', 1, `k${i}`, i, at(1), 5)));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(5);
      for (const r of lost) expect(r.reason).toBeInstanceOf(KvKeyLimitError);
      expect(await store.kv.list('device', 1)).toMatchObject({ rev: 5, items: expect.any(Array) });
      expect((await store.kv.list('device', 1)).items).toHaveLength(5);
    });
  });
}
