// Store contract: device classes and bundles (the project's catalogue of what devices run).
import { describe, expect, it } from 'vitest';
import type { BundleRow, DeviceClassRow } from '../../../src/ports/store.js';
import { at, deviceInput, freshStore, newProject, unique, type MakeStore } from './fixtures.js';

const deviceClass = (projectId: number, id: string, over: Partial<DeviceClassRow> = {}): DeviceClassRow => ({
  projectId,
  id,
  name: null,
  description: null,
  certificateRequired: false,
  creationTime: at(0),
  ...over,
});

const bundle = (projectId: number, over: Partial<BundleRow> = {}): BundleRow => ({
  id: unique('bundle'),
  projectId,
  name: null,
  description: null,
  deviceClass: 'lamp',
  channel: null,
  components: [],
  creationTime: at(0),
  ...over,
});

export function catalogContract(make: MakeStore): void {
  describe('deviceClasses', () => {
    it('creates, reads, lists per project and deletes a class', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const q = await newProject(store);
      const lamp = deviceClass(p.id, 'lamp', { name: 'Lamp', description: 'dimmable' });
      const plug = deviceClass(p.id, 'plug');
      await store.deviceClasses.create(lamp);
      await store.deviceClasses.create(plug);
      await store.deviceClasses.create(deviceClass(q.id, 'lamp'));
      expect(await store.deviceClasses.get(p.id, 'lamp')).toEqual(lamp);
      expect(await store.deviceClasses.get(p.id, 'fan')).toBeUndefined();
      expect(await store.deviceClasses.list(p.id)).toEqual([lamp, plug]);
      expect(await store.deviceClasses.delete(p.id, 'lamp')).toBe(true);
      expect(await store.deviceClasses.delete(p.id, 'lamp')).toBe(false);
      expect(await store.deviceClasses.list(p.id)).toEqual([plug]);
      expect(await store.deviceClasses.get(q.id, 'lamp')).toBeDefined();
    });

    it('refuses a class id twice in one project', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      await store.deviceClasses.create(deviceClass(p.id, 'lamp'));
      await expect(store.deviceClasses.create(deviceClass(p.id, 'lamp'))).rejects.toThrow();
    });

    it('counts the devices of a class within its project only', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const q = await newProject(store);
      expect(await store.deviceClasses.deviceCount(p.id, 'lamp')).toBe(0);
      await store.devices.create(deviceInput(p.id, { deviceClass: 'lamp' }));
      await store.devices.create(deviceInput(p.id, { deviceClass: 'lamp' }));
      await store.devices.create(deviceInput(p.id, { deviceClass: 'plug' }));
      await store.devices.create(deviceInput(q.id, { deviceClass: 'lamp' }));
      expect(await store.deviceClasses.deviceCount(p.id, 'lamp')).toBe(2);
      expect(await store.deviceClasses.deviceCount(p.id, 'plug')).toBe(1);
    });
  });

  describe('bundles', () => {
    it('round-trips components, optional fields and nested config schemas included', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const b = bundle(p.id, {
        name: 'Stable',
        description: 'the one we ship',
        channel: 'stable',
        components: [
          {
            componentName: 'firmware',
            componentVersionName: '1.2.3',
            filename: 'fw.bin',
            checksum: 'sha256:abc',
            url: 'https://cdn.example.com/fw.bin',
            deviceConfigSchema: [{ key: 'interval', type: 'number', default: 5, nested: { ok: [true, null] } }],
          },
          { componentName: 'ui', componentVersionName: 'ünïcode ✓' },
        ],
      });
      await store.bundles.create(b);
      expect(await store.bundles.get(b.id)).toEqual(b);
      expect(await store.bundles.get('unknown')).toBeUndefined();
    });

    it('lists bundles of a project, filtered by device class and channel', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const q = await newProject(store);
      const lampStable = bundle(p.id, { deviceClass: 'lamp', channel: 'stable', creationTime: at(1) });
      const lampBeta = bundle(p.id, { deviceClass: 'lamp', channel: 'beta', creationTime: at(2) });
      const plugStable = bundle(p.id, { deviceClass: 'plug', channel: 'stable', creationTime: at(3) });
      for (const b of [lampStable, lampBeta, plugStable, bundle(q.id)]) await store.bundles.create(b);
      expect(await store.bundles.list({ projectId: p.id })).toEqual([lampStable, lampBeta, plugStable]);
      expect(await store.bundles.list({ projectId: p.id, deviceClass: 'lamp' })).toEqual([lampStable, lampBeta]);
      expect(await store.bundles.list({ projectId: p.id, channel: 'stable' })).toEqual([lampStable, plugStable]);
      expect(await store.bundles.list({ projectId: p.id, deviceClass: 'plug', channel: 'beta' })).toEqual([]);
    });

    it('deletes a bundle once', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const b = bundle(p.id);
      await store.bundles.create(b);
      expect(await store.bundles.delete(b.id)).toBe(true);
      expect(await store.bundles.delete(b.id)).toBe(false);
      expect(await store.bundles.get(b.id)).toBeUndefined();
    });
  });
}
