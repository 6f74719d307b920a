// Store contract: firmware files and rollouts (docs/firmware.md): a file sets its component's url
// and checksum in the same transaction; rollout devices move only from the states named, once
// however many callers race; counts are exact; leases and announcements go to one caller.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, newProject, unique, type MakeStore } from './fixtures.js';

async function setup(store: Store, n: number) {
  const p = await newProject(store);
  await store.deviceClasses.create({ projectId: p.id, id: 'default', name: null, description: null, creationTime: at(0) } as never);
  const bundleId = unique('b');
  await store.bundles.create({
    id: bundleId,
    projectId: p.id,
    name: null,
    description: null,
    deviceClass: 'default',
    channel: null,
    components: [{ componentName: 'main', componentVersionName: '1' }],
    creationTime: at(0),
  });
  const devices = [];
  for (let i = 0; i < n; i++) devices.push(await store.devices.create(deviceInput(p.id)));
  const id = unique('r');
  await store.rollouts.create(
    {
      id,
      projectId: p.id,
      bundleId,
      name: 'r',
      state: 'running',
      target: {},
      waves: [{ percent: 50 }, { percent: 100, afterMinutes: 1 }],
      currentWave: 0,
      waveTime: at(0),
      failureThreshold: 10,
      ratePerMinute: null,
      ttl: 60,
      creationTime: at(0),
      updateTime: at(0),
    },
    devices.map((d, i) => ({ deviceId: d.id, wave: i % 2, state: i === 0 ? ('installed' as const) : undefined })),
  );
  return { projectId: p.id, bundleId, id, devices };
}

export function rolloutsContract(make: MakeStore): void {
  describe('firmware files and rollouts', () => {
    it('a file sets its component url and checksum, replaces the earlier one, and goes with its bundle', async () => {
      const store = await freshStore(make);
      const { bundleId } = await setup(store, 0);
      const row = { bundleId, componentName: 'main', size: 5_000_000_000, sha256: 'ab'.repeat(32), blobKey: 'firmware/x/1', creationTime: at(1) };
      expect(await store.firmwareFiles.put(row, { url: 'http://h/f', checksum: `sha256:${row.sha256}` })).toEqual({});
      expect((await store.bundles.get(bundleId))!.components[0]).toEqual({
        componentName: 'main',
        componentVersionName: '1',
        url: 'http://h/f',
        checksum: `sha256:${row.sha256}`,
      });
      const again = await store.firmwareFiles.put({ ...row, blobKey: 'firmware/x/2', size: 3 }, { url: 'http://h/f', checksum: 'sha256:cd' });
      expect(again).toEqual({ replaced: row });
      expect(await store.firmwareFiles.get(bundleId, 'main')).toMatchObject({ blobKey: 'firmware/x/2', size: 3 });
      expect(await store.firmwareFiles.put({ ...row, componentName: 'none' }, { url: 'http://h/f', checksum: 'x' })).toBeUndefined();
      expect(await store.firmwareFiles.deleteForBundle(bundleId)).toHaveLength(1);
      expect(await store.firmwareFiles.list(bundleId)).toEqual([]);
    });

    it('counts by state; a device moves once from the states named, however many race', async () => {
      const store = await freshStore(make);
      const { id, devices } = await setup(store, 6);
      expect((await store.rollouts.counts([id])).get(id)).toEqual({ targeted: 6, pending: 5, notified: 0, downloading: 0, installed: 1, failed: 0 });
      const d = devices[1]!.id;
      const raced = await Promise.all(Array.from({ length: 5 }, () => store.rollouts.move(id, d, ['pending'], 'notified', at(2))));
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store.rollouts.move(id, d, ['pending'], 'failed', at(3))).toBeUndefined();
      expect(await store.rollouts.move(id, d, ['notified'], 'failed', at(3), 'boom')).toMatchObject({ state: 'failed', error: 'boom' });
      expect((await store.rollouts.counts([id])).get(id)).toEqual({ targeted: 6, pending: 4, notified: 0, downloading: 0, installed: 1, failed: 1 });
      const page = await store.rollouts.devices(id, ['failed'], all);
      expect(page).toEqual({ total: 1, items: [expect.objectContaining({ deviceId: d, state: 'failed', error: 'boom', updateTime: at(3) })] });
      expect(await store.rollouts.ofDevice(d, (await store.rollouts.get(id))!.bundleId, ['failed'])).toEqual([
        expect.objectContaining({ rolloutId: id, rolloutState: 'running' }),
      ]);
    });

    it('notifies by wave, once per device, paced by the window; overdue devices fail', async () => {
      const store = await freshStore(make);
      const { id } = await setup(store, 6);
      const first = await store.rollouts.toNotify(id, 0, 100);
      expect(first.every((x) => x.wave === 0 && x.state === 'pending')).toBe(true);
      expect(first).toHaveLength(2);
      const raced = await Promise.all([1, 2, 3].map((n) => store.rollouts.recordCommand(id, first[0]!.deviceId, `c${n}`, at(10), at(70))));
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store.rollouts.toNotify(id, 0, 100)).toHaveLength(1);
      expect(await store.rollouts.toNotify(id, 1, 100)).toHaveLength(4);
      expect(await store.rollouts.notifiedSince(id, at(10))).toBe(1);
      expect(await store.rollouts.notifiedSince(id, at(11))).toBe(0);
      expect(await store.rollouts.openCommands(id)).toHaveLength(1);
      expect(await store.rollouts.failOverdue(id, at(69), 100, 'late')).toBe(0);
      expect(await store.rollouts.failOverdue(id, at(70), 100, 'late')).toBe(1);
      expect(await store.rollouts.failOverdue(id, at(71), 100, 'late')).toBe(0);
    });

    it('changes state conditionally, leases to one owner at a time, and announces once per gap', async () => {
      const store = await freshStore(make);
      const { id, bundleId } = await setup(store, 1);
      expect(await store.rollouts.activeForBundle(bundleId)).toBe(true);
      const waved = await Promise.all([1, 2].map(() => store.rollouts.update(id, ['running'], { currentWave: 1, waveTime: at(5) }, at(5), 0)));
      expect(waved.filter(Boolean)).toHaveLength(1);
      expect(await store.rollouts.update(id, ['paused'], { state: 'running' }, at(6))).toBeUndefined();
      expect(await store.rollouts.update(id, ['running'], { state: 'aborted' }, at(6))).toMatchObject({ state: 'aborted', currentWave: 1, updateTime: at(6) });
      expect(await store.rollouts.activeForBundle(bundleId)).toBe(false);

      expect(await store.rollouts.lease(id, 'a', at(10), at(40))).toBe(true);
      expect(await store.rollouts.lease(id, 'b', at(20), at(50))).toBe(false);
      expect(await store.rollouts.lease(id, 'a', at(20), at(50))).toBe(true);
      expect(await store.rollouts.lease(id, 'b', at(51), at(80))).toBe(true);
      await store.rollouts.release(id, 'a');
      expect(await store.rollouts.lease(id, 'a', at(52), at(80))).toBe(false);
      await store.rollouts.release(id, 'b');
      expect(await store.rollouts.lease(id, 'a', at(52), at(80))).toBe(true);

      const claims = await Promise.all([1, 2, 3].map(() => store.rollouts.claimAnnouncement(id, at(100), 1000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      await store.rollouts.touch(id, at(100.5));
      expect(await store.rollouts.claimAnnouncement(id, at(100.5), 1000)).toBe(false);
      expect(await store.rollouts.claimAnnouncement(id, at(101), 1000)).toBe(true);
      expect(await store.rollouts.claimAnnouncement(id, at(103), 1000)).toBe(false);
      expect((await store.rollouts.list((await store.rollouts.get(id))!.projectId, all)).total).toBe(1);
    });
  });
}
