// Contract: data sources and the records store sources keep (docs/concepts.md#data-sources).
import { describe, expect, it } from 'vitest';
import type { DataRecordRow, DataSourceRow } from '../../../src/ports/store.js';
import { all, at, freshStore, type MakeStore } from '../store/fixtures.js';

export const sourceRow = (id: string, over: Partial<DataSourceRow> = {}): DataSourceRow => ({
  projectId: 1,
  id,
  name: id,
  type: 'store',
  deviceClasses: null,
  url: null,
  keySealed: null,
  retentionDays: null,
  failingSince: null,
  lastFailureTime: null,
  lastError: null,
  creationTime: at(0),
  modificationTime: at(0),
  ...over,
});

const rec = (sourceId: string, deviceId: number, seconds: number, data: Record<string, unknown> = { s: seconds }): DataRecordRow => ({
  projectId: 1,
  sourceId,
  deviceId,
  timestamp: at(seconds),
  data,
});

export function dataContract(make: MakeStore): void {
  describe('dataSources and dataRecords', () => {
    it('creates once per id, lists by id, updates, lists store sources of every project, deletes', async () => {
      const store = await freshStore(make);
      expect(await store.dataSources.create(sourceRow('b-src', { deviceClasses: ['x', 'y'], retentionDays: 3 }))).toBe(true);
      expect(await store.dataSources.create(sourceRow('b-src'))).toBe(false);
      await store.dataSources.create(sourceRow('a-hook', { type: 'webhook', url: 'http://h/', keySealed: 'sealed' }));
      await store.dataSources.create(sourceRow('c-src', { projectId: 2 }));
      expect((await store.dataSources.list(1)).map((s) => s.id)).toEqual(['a-hook', 'b-src']);
      expect(await store.dataSources.get(1, 'b-src')).toMatchObject({ deviceClasses: ['x', 'y'], retentionDays: 3, type: 'store' });
      expect(
        await store.dataSources.update(1, 'a-hook', {
          failingSince: at(1),
          lastFailureTime: at(2),
          lastError: 'HTTP_500',
          deviceClasses: null,
          modificationTime: at(3),
        }),
      ).toBe(true);
      expect(await store.dataSources.get(1, 'a-hook')).toMatchObject({
        failingSince: at(1),
        lastFailureTime: at(2),
        lastError: 'HTTP_500',
        deviceClasses: null,
        url: 'http://h/',
      });
      expect((await store.dataSources.listStores()).map((s) => `${s.projectId}/${s.id}`)).toEqual(['1/b-src', '2/c-src']);
      expect(await store.dataSources.delete(1, 'a-hook')).toBe(true);
      expect(await store.dataSources.update(1, 'a-hook', { modificationTime: at(4) })).toBe(false);
    });

    it('keeps records queryable by device and time, newest first, and prunes in batches', async () => {
      const store = await freshStore(make);
      await store.dataRecords.insertMany([rec('s', 1, 1, { nested: { a: [1, 'b'] } }), rec('s', 2, 2), rec('s', 1, 3), rec('t', 1, 4)]);
      const page = await store.dataRecords.list({ projectId: 1, sourceId: 's' }, all);
      expect(page.total).toBe(3);
      expect(page.items.map((r) => r.timestamp)).toEqual([at(3), at(2), at(1)]);
      expect(page.items[2].data).toEqual({ nested: { a: [1, 'b'] } });
      expect((await store.dataRecords.list({ projectId: 1, sourceId: 's', deviceId: 1, since: at(2) }, all)).items.map((r) => r.timestamp)).toEqual([at(3)]);
      expect((await store.dataRecords.list({ projectId: 1, sourceId: 's', until: at(2) }, all)).total).toBe(1);
      expect(await store.dataRecords.prune(1, 's', at(3), 1)).toBe(1);
      expect(await store.dataRecords.prune(1, 's', at(3), 10)).toBe(1);
      expect(await store.dataRecords.prune(1, 's', at(3), 10)).toBe(0);
      expect(await store.dataRecords.deleteForSource(1, 's')).toBe(1);
      expect(await store.dataRecords.deleteForSource(1, 's')).toBe(0);
    });

    it('inserts large batches', async () => {
      const store = await freshStore(make);
      await store.dataRecords.insertMany(Array.from({ length: 1000 }, (_, i) => rec('big', 1, i)));
      expect((await store.dataRecords.list({ projectId: 1, sourceId: 'big' }, { skip: 0, limit: 1 })).total).toBe(1000);
    });
  });
}
