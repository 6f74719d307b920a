// Store contract: key-value stores: revisions, values, prefixes, scopes. Limits and concurrency
// are in kv.limits.ts.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { at, freshStore, type MakeStore } from './fixtures.js';

const MAX = 100;
const keysOf = async (store: Store, ownerId: number, prefix?: string) => (await store.kv.list('device', ownerId, prefix)).items.map((i) => i.key).sort();

export function kvContract(make: MakeStore): void {
  describe('kv', () => {
    it('starts an empty store at rev 0 with no items', async () => {
      const store = await freshStore(make);
      expect(await store.kv.list('device', 1)).toEqual({ rev: 0, items: [] });
      expect(await store.kv.list('home', 1)).toEqual({ rev: 0, items: [] });
    });

    it('grows the rev by exactly one per set and per delete', async () => {
      const store = await freshStore(make);
      expect(await store.kv.set('device', 1, 'a', 1, at(1), MAX)).toEqual({ rev: 1 });
      expect(await store.kv.set('device', 1, 'b', 2, at(2), MAX)).toEqual({ rev: 2 });
      expect(await store.kv.set('device', 1, 'a', 3, at(3), MAX)).toEqual({ rev: 3 });
      expect(await store.kv.delete('device', 1, 'a')).toEqual({ rev: 4 });
      expect((await store.kv.list('device', 1)).rev).toBe(4);
    });

    it('answers undefined to a delete of a missing key and keeps the rev', async () => {
      const store = await freshStore(make);
      expect(await store.kv.delete('device', 1, 'missing')).toBeUndefined();
      expect((await store.kv.list('device', 1)).rev).toBe(0);
      await store.kv.set('device', 1, 'a', 1, at(1), MAX);
      expect(await store.kv.delete('device', 1, 'missing')).toBeUndefined();
      expect((await store.kv.list('device', 1)).rev).toBe(1);
    });

    it('gets an item with its modification time; an overwrite replaces both', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'mode', 'eco', at(1), MAX);
      expect(await store.kv.get('device', 1, 'mode')).toEqual({ key: 'mode', value: 'eco', modificationTime: at(1) });
      await store.kv.set('device', 1, 'mode', { level: 2 }, at(2), MAX);
      expect(await store.kv.get('device', 1, 'mode')).toEqual({ key: 'mode', value: { level: 2 }, modificationTime: at(2) });
      expect(await store.kv.list('device', 1)).toEqual({ rev: 2, items: [{ key: 'mode', value: { level: 2 }, modificationTime: at(2) }] });
      expect(await store.kv.get('device', 1, 'other')).toBeUndefined();
    });

    it('round-trips values of every JSON type', async () => {
      const store = await freshStore(make);
      const values: Record<string, unknown> = {
        string: 'hello',
        empty: '',
        quoted: 'say "hi"\n\\ \u0000 done',
        integer: 42,
        negative: -7.25,
        large: 2 ** 53 - 1,
        tiny: 1e-300,
        zero: 0,
        true: true,
        false: false,
        null: null,
        array: [1, 'two', false, null, [3]],
        emptyArray: [],
        object: { a: 1, b: 'x' },
        emptyObject: {},
        nested: { deep: { deeper: { list: [{ ok: true }, { n: 1.5 }] } } },
        unicode: 'héllo wörld ✓ 中文 🌍',
      };
      for (const [key, value] of Object.entries(values)) await store.kv.set('device', 1, key, value, at(1), MAX);
      for (const [key, value] of Object.entries(values)) expect((await store.kv.get('device', 1, key))?.value).toEqual(value);
      const listed = Object.fromEntries((await store.kv.list('device', 1)).items.map((i) => [i.key, i.value]));
      expect(listed).toEqual(values);
    });

    it('round-trips keys with unicode and punctuation', async () => {
      const store = await freshStore(make);
      const keys = ['ключ', 'clé', '🌍.temp', 'a b', "it's", 'a\\b'];
      for (const key of keys) await store.kv.set('device', 1, key, key, at(1), MAX);
      for (const key of keys) expect((await store.kv.get('device', 1, key))?.value).toBe(key);
      expect(await keysOf(store, 1)).toEqual([...keys].sort());
    });

    it('lists by an exact, case-sensitive key prefix', async () => {
      const store = await freshStore(make);
      for (const key of ['temp', 'temp.in', 'Temp.out', 'TEMP', 'tem', 'xtemp', 'humidity']) {
        await store.kv.set('device', 1, key, 0, at(1), MAX);
      }
      expect(await keysOf(store, 1, 'temp')).toEqual(['temp', 'temp.in']);
      expect(await keysOf(store, 1, 'Temp')).toEqual(['Temp.out']);
      expect(await keysOf(store, 1, 'nothing')).toEqual([]);
      expect(await keysOf(store, 1, '')).toHaveLength(7);
    });

    it('treats % and _ in a key prefix literally', async () => {
      const store = await freshStore(make);
      for (const key of ['a%b', 'a_b', 'axb', 'a\\b', 'abc']) await store.kv.set('device', 1, key, 0, at(1), MAX);
      expect(await keysOf(store, 1, 'a%')).toEqual(['a%b']);
      expect(await keysOf(store, 1, 'a_')).toEqual(['a_b']);
      expect(await keysOf(store, 1, 'a\\')).toEqual(['a\\b']);
      expect(await keysOf(store, 1, '%')).toEqual([]);
    });

    it('matches a prefix of non-ASCII characters, astral ones included', async () => {
      const store = await freshStore(make);
      for (const key of ['🌍a', '🌍b', '🌎a', 'éa', 'Éa', 'e']) await store.kv.set('device', 1, key, 0, at(1), MAX);
      expect(await keysOf(store, 1, '🌍')).toEqual(['🌍a', '🌍b']);
      expect(await keysOf(store, 1, '🌍a')).toEqual(['🌍a']);
      expect(await keysOf(store, 1, 'é')).toEqual(['éa']);
    });

    it('keeps device and home stores with the same owner id apart', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 7, 'k', 'device value', at(1), MAX);
      await store.kv.set('device', 7, 'only-device', 1, at(1), MAX);
      expect(await store.kv.set('home', 7, 'k', 'home value', at(2), MAX)).toEqual({ rev: 1 });
      expect((await store.kv.get('home', 7, 'k'))?.value).toBe('home value');
      expect((await store.kv.get('device', 7, 'k'))?.value).toBe('device value');
      expect(await store.kv.get('home', 7, 'only-device')).toBeUndefined();
      expect(await store.kv.delete('home', 7, 'only-device')).toBeUndefined();
      await store.kv.drop('home', 7);
      expect(await store.kv.list('device', 7)).toMatchObject({ rev: 2, items: [{ key: 'k' }, { key: 'only-device' }] });
    });

    it('drops one store entirely and no other', async () => {
      const store = await freshStore(make);
      await store.kv.set('device', 1, 'a', 1, at(1), MAX);
      await store.kv.set('device', 1, 'b', 2, at(1), MAX);
      await store.kv.set('device', 2, 'a', 1, at(1), MAX);
      await store.kv.drop('device', 1);
      expect(await store.kv.list('device', 1)).toEqual({ rev: 0, items: [] });
      expect(await store.kv.get('device', 1, 'a')).toBeUndefined();
      expect(await store.kv.list('device', 2)).toMatchObject({ rev: 1, items: [{ key: 'a', value: 1 }] });
      await store.kv.drop('device', 99);
    });
  });
}
