// Store contract: key-value limits and concurrent writers of one store.
import { describe, expect, it } from 'vitest';
import { KvKeyLimitError, KvStoreBytesError, type Store } from '../../../src/ports/store.js';
import { at, freshStore, type MakeStore } from './fixtures.js';

/** the bytes of the store's `reload` message as a device receives it (docs/devices.md#kv-sync) */
export async function reloadSize(store: Pick<Store, 'kv'>, ownerId: number): Promise<number> {
  const { rev, items } = await store.kv.list('device', ownerId);
  return Buffer.byteLength(JSON.stringify({ action: 'reload', rev, numItems: items.length, items }));
}

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

    it('bounds the store by its reload message: exactly maxBytes passes, one byte less refuses with KvStoreBytesError', async () => {
      // the same writes on two stores: the first measures the reload the last write makes
      const writes = async (store: Store, maxBytes?: number) => {
        await store.kv.set('device', 1, 'name', 'kitchén 🌍', at(1), 100);
        await store.kv.set('device', 1, 'a:b-c_d', { nested: [1, 'x"y', true] }, at(2), 100);
        return store.kv.set('device', 1, 'z', 12.5, at(3), 100, maxBytes);
      };
      const measured = await freshStore(make);
      await writes(measured);
      const size = await reloadSize(measured, 1);
      const exact = await freshStore(make);
      await expect(writes(exact, size)).resolves.toEqual({ rev: 3 });
      expect(await reloadSize(exact, 1)).toBe(size);
      const under = await freshStore(make);
      const refused = writes(under, size - 1);
      await expect(refused).rejects.toBeInstanceOf(KvStoreBytesError);
      await expect(refused).rejects.toMatchObject({ maxBytes: size - 1, bytes: size });
      expect(await under.kv.get('device', 1, 'z')).toBeUndefined();
      expect((await under.kv.list('device', 1)).rev).toBe(2);
    });

    it('refuses an overwrite that grows a full store, accepts one that shrinks it even over the bound', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'big', 'x'.repeat(1000), at(1), 100);
      const full = await reloadSize(store, 1);
      await expect(store.kv.set('device', 1, 'big', 'x'.repeat(1001), at(2), 100, full)).rejects.toBeInstanceOf(KvStoreBytesError);
      // a bound lowered below what the store holds: shrinking is still allowed, growing is not
      await expect(store.kv.set('device', 1, 'big', 'x'.repeat(500), at(3), 100, 200)).resolves.toEqual({ rev: 2 });
      await expect(store.kv.set('device', 1, 'small', 1, at(4), 100, 200)).rejects.toBeInstanceOf(KvStoreBytesError);
      expect(await reloadSize(store, 1)).toBeLessThan(full);
    });

    it('counts the byte bound per store, and a delete makes room', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 'x'.repeat(400), at(1), 100, 600);
      await expect(store.kv.set('device', 1, 'b', 'y'.repeat(400), at(1), 100, 600)).rejects.toBeInstanceOf(KvStoreBytesError);
      await expect(store.kv.set('device', 2, 'b', 'y'.repeat(400), at(1), 100, 600)).resolves.toEqual({ rev: 1 });
      await expect(store.kv.set('home', 1, 'b', 'y'.repeat(400), at(1), 100, 600)).resolves.toEqual({ rev: 1 });
      await store.kv.delete('device', 1, 'a');
      await expect(store.kv.set('device', 1, 'b', 'y'.repeat(400), at(2), 100, 600)).resolves.toEqual({ rev: 3 });
    });

    it('keeps the byte bound under many concurrent writers of one store', async () => {
      const store = await freshStore(make);
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => store.kv.set('device', 1, `k${i}`, 'v'.repeat(1000), at(1), 1000, 8192)));
      const won = results.filter((r) => r.status === 'fulfilled').length;
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(KvStoreBytesError);
      expect(won).toBeGreaterThan(0);
      expect(won).toBeLessThan(30);
      expect(await reloadSize(store, 1)).toBeLessThanOrEqual(8192);
      expect((await store.kv.list('device', 1)).items).toHaveLength(won);
    });
  });
}
