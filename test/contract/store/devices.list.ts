// Store contract: listing devices (every filter, combined filters, paging with a total).
import { describe, expect, it } from 'vitest';
import type { DeviceFilter, Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, ids, newProject, type MakeStore } from './fixtures.js';

/** two projects; in the first, two homes, a lamp and a plug in them and a lamp in no home */
async function seed(store: Store) {
  const p = await newProject(store);
  const q = await newProject(store);
  const h1 = await store.homes.create({ projectId: p.id, name: 'H1', creationTime: at(0) });
  const h2 = await store.homes.create({ projectId: p.id, name: 'H2', creationTime: at(0) });
  const light = await store.devices.create(deviceInput(p.id, { homeId: h1.id, deviceClass: 'lamp', tag: 'kitchen', name: 'Ceiling Light' }));
  const plug = await store.devices.create(deviceInput(p.id, { homeId: h2.id, deviceClass: 'plug', tag: 'Garage', description: 'Coffee maker, 50%_off' }));
  const spare = await store.devices.create(deviceInput(p.id, { deviceClass: 'lamp', name: 'spare' }));
  const foreign = await store.devices.create(deviceInput(q.id, { deviceClass: 'lamp', tag: 'kitchen', name: 'Light' }));
  await store.devices.setConnected(plug.id, true, at(1));
  await store.devices.setConnected(foreign.id, true, at(1));
  return { p, q, h1, h2, light, plug, spare, foreign };
}

async function listIds(store: Store, f: DeviceFilter): Promise<number[]> {
  const r = await store.devices.list(f, all);
  expect(r.total).toBe(r.items.length);
  return ids(r.items);
}

export function devicesListContract(make: MakeStore): void {
  describe('devices.list', () => {
    it('filters by project', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id })).toEqual(ids([s.light, s.plug, s.spare]));
      expect(await listIds(store, {})).toEqual(ids([s.light, s.plug, s.spare, s.foreign]));
    });

    it('restricts to a set of homes, an empty set matching nothing', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, homeIds: [s.h1.id] })).toEqual([s.light.id]);
      expect(await listIds(store, { homeIds: [s.h1.id, s.h2.id] })).toEqual(ids([s.light, s.plug]));
      expect(await store.devices.list({ projectId: s.p.id, homeIds: [] }, all)).toEqual({ total: 0, items: [] });
      expect(await store.devices.list({ homeIds: [] }, all)).toEqual({ total: 0, items: [] });
    });

    it('filters by one home', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { homeId: s.h2.id })).toEqual([s.plug.id]);
      expect(await listIds(store, { homeId: s.h2.id, homeIds: [s.h1.id] })).toEqual([]);
    });

    it('filters by device class and by tag, exactly', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, deviceClass: 'lamp' })).toEqual(ids([s.light, s.spare]));
      expect(await listIds(store, { projectId: s.p.id, tag: 'kitchen' })).toEqual([s.light.id]);
      expect(await listIds(store, { tag: 'kitchen' })).toEqual(ids([s.light, s.foreign]));
      expect(await listIds(store, { projectId: s.p.id, tag: 'garage' })).toEqual([]);
    });

    it('filters by connection state', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, isConnected: true })).toEqual([s.plug.id]);
      expect(await listIds(store, { projectId: s.p.id, isConnected: false })).toEqual(ids([s.light, s.spare]));
    });

    it('searches name, tag and description case-insensitively', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, search: 'LIGHT' })).toEqual([s.light.id]);
      expect(await listIds(store, { projectId: s.p.id, search: 'garage' })).toEqual([s.plug.id]);
      expect(await listIds(store, { projectId: s.p.id, search: 'coffee MAKER' })).toEqual([s.plug.id]);
      expect(await listIds(store, { search: 'light' })).toEqual(ids([s.light, s.foreign]));
      expect(await listIds(store, { projectId: s.p.id, search: 'nothing like it' })).toEqual([]);
    });

    it('treats % and _ in a search literally', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, search: '50%_' })).toEqual([s.plug.id]);
      expect(await listIds(store, { projectId: s.p.id, search: '%' })).toEqual([s.plug.id]);
      expect(await listIds(store, { projectId: s.p.id, search: 'ceiling_light' })).toEqual([]);
    });

    it('combines filters with and', async () => {
      const store = await freshStore(make);
      const s = await seed(store);
      expect(await listIds(store, { projectId: s.p.id, deviceClass: 'lamp', isConnected: false, search: 'spa' })).toEqual([s.spare.id]);
      expect(await listIds(store, { projectId: s.q.id, homeIds: [s.h1.id] })).toEqual([]);
    });

    it('pages the matches while total counts them all', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const made = [];
      for (let i = 0; i < 7; i++) made.push(await store.devices.create(deviceInput(p.id)));
      const seen = [];
      for (const skip of [0, 3, 6]) {
        const page = await store.devices.list({ projectId: p.id }, { skip, limit: 3 });
        expect(page.total).toBe(7);
        expect(page.items).toHaveLength(skip === 6 ? 1 : 3);
        seen.push(...page.items);
      }
      expect(ids(seen)).toEqual(ids(made));
      expect(await store.devices.list({ projectId: p.id }, { skip: 10, limit: 3 })).toEqual({ total: 7, items: [] });
    });
  });
}
