// Store contract: device rows (create, lookups, patch, presence, delete). Listing is in
// devices.list.ts.
import { describe, expect, it } from 'vitest';
import { at, deviceInput, freshStore, newProject, type MakeStore } from './fixtures.js';

export function devicesContract(make: MakeStore): void {
  describe('devices', () => {
    it('creates a device with a new id, offline and never connected', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const input = deviceInput(p.id, { name: 'Desk', tag: 't1', channel: 'beta' });
      const d = await store.devices.create(input);
      expect(d).toEqual({ ...input, id: expect.any(Number), isConnected: false, lastConnectTime: null, lastDisconnectTime: null });
      expect(await store.devices.get(d.id)).toEqual(d);
      const second = await store.devices.create(deviceInput(p.id));
      expect(second.id).not.toBe(d.id);
    });

    it('returns undefined for an unknown device', async () => {
      const store = await freshStore(make);
      expect(await store.devices.get(424242)).toBeUndefined();
      expect(await store.devices.getByKeyHash('nope')).toBeUndefined();
      expect(await store.devices.getByClaimHash('nope')).toBeUndefined();
    });

    it('finds a device by its API key hash', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      await store.devices.create(deviceInput(p.id));
      const d = await store.devices.create(deviceInput(p.id));
      expect(await store.devices.getByKeyHash(d.apiKeyHash)).toEqual(d);
    });

    it('signs a device in by its API key hash: its id, project, class, home and whether its class requires a certificate, as the records hold them now', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      await store.devices.create(deviceInput(p.id));
      const d = await store.devices.create(deviceInput(p.id));
      expect(await store.devices.signInByKeyHash('nope')).toBeUndefined();
      // the four fields and its class's certificateRequired, nothing else of the row
      const identity = { id: d.id, projectId: p.id, deviceClass: d.deviceClass, homeId: null };
      expect(await store.devices.signInByKeyHash(d.apiKeyHash)).toStrictEqual({ ...identity, certificateRequired: false });
      await store.deviceClasses.create({ projectId: p.id, id: d.deviceClass, name: null, description: null, certificateRequired: true, creationTime: at(0) });
      expect(await store.devices.signInByKeyHash(d.apiKeyHash)).toStrictEqual({ ...identity, certificateRequired: true });
      expect(await store.deviceClasses.setCertificateRequired(p.id, d.deviceClass, false)).toBe(true);
      expect(await store.devices.signInByKeyHash(d.apiKeyHash)).toStrictEqual({ ...identity, certificateRequired: false });
      // a read cache in front of the store (if any) holds the row now: a new key is still seen at once
      expect(await store.devices.getByKeyHash(d.apiKeyHash)).toEqual(d);
      await store.devices.update(d.id, { apiKeyHash: 'rotated-key' });
      expect(await store.devices.signInByKeyHash(d.apiKeyHash)).toBeUndefined();
      expect((await store.devices.signInByKeyHash('rotated-key'))?.id).toBe(d.id);
      await store.devices.delete(d.id);
      expect(await store.devices.signInByKeyHash('rotated-key')).toBeUndefined();
    });

    it('finds a device by its claim code hash', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      await store.devices.create(deviceInput(p.id));
      const d = await store.devices.create(deviceInput(p.id, { claimCodeHash: 'claim-1', claimCodeSealed: 'sealed-claim', claimExpirationTime: at(60) }));
      expect(await store.devices.getByClaimHash('claim-1')).toEqual(d);
    });

    it('claims a device into a home once, only while its window is open and it is in no home', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const open = await store.devices.create(deviceInput(p.id, { claimExpirationTime: at(60) }));
      const now = at(0);
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => store.devices.claim(open.id, 100 + i, now)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const claimed = await store.devices.get(open.id);
      expect(claimed).toMatchObject({ claimTime: now, claimExpirationTime: now });
      expect(claimed!.homeId).toBe(100 + wins.indexOf(true));
      const closed = await store.devices.create(deviceInput(p.id, { claimExpirationTime: at(-1) }));
      expect(await store.devices.claim(closed.id, 5, now)).toBe(false);
      const housed = await store.devices.create(deviceInput(p.id, { homeId: 9, claimExpirationTime: at(60) }));
      expect(await store.devices.claim(housed.id, 5, now)).toBe(false);
      expect((await store.devices.get(housed.id))!.homeId).toBe(9);
    });

    it('refuses a second device with the same API key hash', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const d = await store.devices.create(deviceInput(p.id));
      await expect(store.devices.create(deviceInput(p.id, { apiKeyHash: d.apiKeyHash }))).rejects.toThrow();
    });

    it('patches only the given fields, null included', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const d = await store.devices.create(
        deviceInput(p.id, { homeId: 3, name: 'Old', claimCodeHash: 'c', claimCodeSealed: 's', claimExpirationTime: at(60) }),
      );
      const patch = {
        name: 'New',
        homeId: null,
        claimCodeHash: null,
        claimCodeSealed: null,
        claimTime: at(10),
        bundleInstalled: 'b-1',
        bundleInstallTime: at(11),
      };
      await store.devices.update(d.id, patch);
      expect(await store.devices.get(d.id)).toEqual({ ...d, ...patch });
      expect(await store.devices.getByClaimHash('c')).toBeUndefined();
    });

    it('treats an empty patch, or one of undefined fields, as no change', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const d = await store.devices.create(deviceInput(p.id, { name: 'Keep' }));
      await store.devices.update(d.id, {});
      await store.devices.update(d.id, { name: undefined });
      await store.devices.update(d.id, { name: undefined, tag: 'tagged' });
      expect(await store.devices.get(d.id)).toEqual({ ...d, tag: 'tagged' });
    });

    it('stamps lastConnectTime on connect and lastDisconnectTime on disconnect', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const d = await store.devices.create(deviceInput(p.id));
      await store.devices.setConnected(d.id, true, at(10));
      expect(await store.devices.get(d.id)).toMatchObject({ isConnected: true, lastConnectTime: at(10), lastDisconnectTime: null });
      await store.devices.setConnected(d.id, false, at(20));
      expect(await store.devices.get(d.id)).toMatchObject({ isConnected: false, lastConnectTime: at(10), lastDisconnectTime: at(20) });
      await store.devices.setConnected(d.id, true, at(30));
      expect(await store.devices.get(d.id)).toMatchObject({ isConnected: true, lastConnectTime: at(30), lastDisconnectTime: at(20) });
    });

    it('writes the presence of many devices in one call, each with its own time, leaving the others alone', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const [a, b, c, idle] = await store.devices.createMany([deviceInput(p.id), deviceInput(p.id), deviceInput(p.id), deviceInput(p.id)]);
      await store.devices.setConnected(b.id, true, at(5));
      await store.devices.setConnectedMany([
        { id: a.id, connected: true, time: at(10) },
        { id: b.id, connected: false, time: at(11) },
        { id: c.id, connected: true, time: at(12) },
        // a device deleted meanwhile: nothing to write, no error
        { id: idle.id + 1000, connected: true, time: at(13) },
      ]);
      expect(await store.devices.get(a.id)).toMatchObject({ isConnected: true, lastConnectTime: at(10), lastDisconnectTime: null });
      expect(await store.devices.get(b.id)).toMatchObject({ isConnected: false, lastConnectTime: at(5), lastDisconnectTime: at(11) });
      expect(await store.devices.get(c.id)).toMatchObject({ isConnected: true, lastConnectTime: at(12) });
      expect(await store.devices.get(idle.id)).toEqual(idle);
      await store.devices.setConnectedMany([]);
    });

    it('creates many devices at once, in id order, each as create would', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const inputs = Array.from({ length: 1203 }, (_, i) => deviceInput(p.id, { name: `d${i}` }));
      const rows = await store.devices.createMany(inputs);
      expect(rows).toHaveLength(1203);
      expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((x, y) => x - y));
      expect(new Set(rows.map((r) => r.id)).size).toBe(1203);
      const byName = new Map(inputs.map((d) => [d.name, d]));
      for (const r of [rows[0], rows[700], rows[1202]]) {
        expect(r).toEqual({ ...byName.get(r.name)!, id: r.id, isConnected: false, lastConnectTime: null, lastDisconnectTime: null });
        expect(await store.devices.get(r.id)).toEqual(r);
      }
    });

    it('marks every connected device offline and says how many there were', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const q = await newProject(store);
      const a = await store.devices.create(deviceInput(p.id));
      const b = await store.devices.create(deviceInput(q.id));
      const idle = await store.devices.create(deviceInput(p.id));
      await store.devices.setConnected(a.id, true, at(1));
      await store.devices.setConnected(b.id, true, at(1));
      expect(await store.devices.markAllOffline(at(50))).toBe(2);
      expect(await store.devices.get(a.id)).toMatchObject({ isConnected: false, lastConnectTime: at(1), lastDisconnectTime: at(50) });
      expect(await store.devices.get(b.id)).toMatchObject({ isConnected: false, lastDisconnectTime: at(50) });
      // a device that was not connected keeps its history
      expect(await store.devices.get(idle.id)).toEqual(idle);
      expect(await store.devices.markAllOffline(at(60))).toBe(0);
    });

    it('deletes a device once', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const d = await store.devices.create(deviceInput(p.id));
      expect(await store.devices.delete(d.id)).toBe(true);
      expect(await store.devices.delete(d.id)).toBe(false);
      expect(await store.devices.get(d.id)).toBeUndefined();
      expect(await store.devices.getByKeyHash(d.apiKeyHash)).toBeUndefined();
    });
  });
}
