// Contract: device log requests (docs/concepts.md#log-requests) — one open request per device, conditional
// transitions, expiry, cleanup.
import { describe, expect, it } from 'vitest';
import type { NewLogRequest, Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, newProject, unique, type MakeStore } from '../store/fixtures.js';

const request = (deviceId: number, over: Partial<NewLogRequest> = {}): NewLogRequest => ({
  id: unique('lr'),
  projectId: 1,
  deviceId,
  tokenHash: unique('hash'),
  start: null,
  end: null,
  prefixes: ['app'],
  creationTime: at(0),
  ...over,
});

async function device(store: Store): Promise<number> {
  const p = await newProject(store);
  return (await store.devices.create(deviceInput(p.id))).id;
}

export function logRequestsContract(make: MakeStore): void {
  describe('logRequests', () => {
    it('allows one open request per device; a final status frees the device', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const first = request(d);
      expect(await store.logRequests.create(first)).toBe(true);
      expect(await store.logRequests.create(request(d))).toBe(false);
      expect((await store.logRequests.openFor(d))?.id).toBe(first.id);
      const up = await store.logRequests.transition(first.id, ['requested'], {
        status: 'uploading',
        uploadId: 'u1',
        uploadSize: 10,
        numParts: 1,
        partSize: 10,
        uploadExpires: at(60),
      });
      expect(up).toMatchObject({ status: 'uploading', uploadId: 'u1', uploadSize: 10, prefixes: ['app'] });
      expect(await store.logRequests.create(request(d))).toBe(false);
      expect(await store.logRequests.transition(first.id, ['uploading'], { status: 'success', finishTime: at(5) })).toMatchObject({ status: 'success' });
      expect(await store.logRequests.openFor(d)).toBeUndefined();
      expect(await store.logRequests.create(request(d))).toBe(true);
    });

    it('a transition happens once: from another status, or for another upload, it is refused', async () => {
      const store = await freshStore(make);
      const r = request(await device(store));
      await store.logRequests.create(r);
      expect(await store.logRequests.transition(r.id, ['uploading'], { status: 'success' })).toBeUndefined();
      await store.logRequests.transition(r.id, ['requested'], { status: 'uploading', uploadId: 'u1' });
      expect(await store.logRequests.transition(r.id, ['uploading'], { status: 'success' }, 'u2')).toBeUndefined();
      const both = await Promise.all([
        store.logRequests.transition(r.id, ['uploading'], { status: 'success' }, 'u1'),
        store.logRequests.transition(r.id, ['uploading'], { status: 'failure' }, 'u1'),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
    });

    it('finds by token hash, lists newest first, reports expired uploads, deletes per device', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const a = request(d, { creationTime: at(1) });
      await store.logRequests.create(a);
      await store.logRequests.transition(a.id, ['requested'], { status: 'uploading', uploadId: 'u', uploadExpires: at(10) });
      expect((await store.logRequests.getByTokenHash(a.tokenHash))?.id).toBe(a.id);
      expect(await store.logRequests.expired(at(9), 10)).toEqual([]);
      expect((await store.logRequests.expired(at(11), 10)).map((r) => r.id)).toEqual([a.id]);
      await store.logRequests.transition(a.id, ['uploading'], { status: 'failure', uploadExpires: null });
      const b = request(d, { creationTime: at(2) });
      await store.logRequests.create(b);
      const page = await store.logRequests.list(d, all);
      expect(page).toMatchObject({ total: 2, items: [{ id: b.id }, { id: a.id }] });
      expect((await store.logRequests.listForDevice(d)).length).toBe(2);
      expect(await store.logRequests.deleteForDevice(d)).toBe(2);
      expect(await store.logRequests.get(a.id)).toBeUndefined();
      expect(await store.logRequests.delete(b.id)).toBe(false);
    });
  });
}
