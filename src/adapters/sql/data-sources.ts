// Data sources (docs/concepts.md#data-sources) and the records `store` sources keep. Records are append-only, listed
// newest first, and removed with their source, their device, or by retention in batches.
import type { Generated, Kysely, Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { DataRecordRow, DataSourceRow, DataSourceType, DataSourceRepo, DataRecordRepo } from '../../ports/store.js';
import { changedRow, deletedCount, deletedRow, firstOf, fromJson, insertedRow, pageOf, rowsOf, toJson } from './util.js';

export type DataSourcesTable = Columns<DataSourceRow, { deviceClasses: string | null }>;
export type DataRecordsTable = Columns<DataRecordRow, { id: Generated<number>; data: string }>;
type Db = Kysely<Database & { dataSources: DataSourcesTable; dataRecords: DataRecordsTable }>;

function toSource(r: Selectable<DataSourcesTable>): DataSourceRow {
  return { ...r, type: r.type as DataSourceType, deviceClasses: fromJson<string[]>(r.deviceClasses) };
}

export function dataSourceRepo(base: Kysely<Database>): DataSourceRepo {
  const db = base as unknown as Db;
  return {
    create: (s) => insertedRow(db.insertInto('dataSources').values({ ...s, deviceClasses: toJson(s.deviceClasses) }), ['projectId', 'id']),
    get: (projectId, id) => firstOf(db.selectFrom('dataSources').selectAll().where('projectId', '=', projectId).where('id', '=', id), toSource),
    list: (projectId) => rowsOf(db.selectFrom('dataSources').selectAll().where('projectId', '=', projectId).orderBy('id'), toSource),
    listStores: () => rowsOf(db.selectFrom('dataSources').selectAll().where('type', '=', 'store').orderBy('projectId').orderBy('id'), toSource),
    async update(projectId, id, patch) {
      const { deviceClasses, ...rest } = patch;
      const values: Partial<DataSourcesTable> = { ...rest };
      if (deviceClasses !== undefined) values.deviceClasses = toJson(deviceClasses);
      return changedRow(db.updateTable('dataSources').set(values).where('projectId', '=', projectId).where('id', '=', id));
    },
    delete: (projectId, id) => deletedRow(db.deleteFrom('dataSources').where('projectId', '=', projectId).where('id', '=', id)),
  };
}

export function dataRecordRepo(base: Kysely<Database>): DataRecordRepo {
  const db = base as unknown as Db;
  return {
    async insertMany(rows) {
      // chunked: SQLite caps bound parameters per statement
      for (let i = 0; i < rows.length; i += 150) {
        await db
          .insertInto('dataRecords')
          .values(rows.slice(i, i + 150).map((r) => ({ ...r, data: JSON.stringify(r.data) })))
          .execute();
      }
    },
    async list(f, page) {
      let q = db.selectFrom('dataRecords').where('projectId', '=', f.projectId).where('sourceId', '=', f.sourceId);
      if (f.deviceId !== undefined) q = q.where('deviceId', '=', f.deviceId);
      if (f.since) q = q.where('timestamp', '>=', f.since);
      if (f.until) q = q.where('timestamp', '<', f.until);
      return pageOf(
        q,
        page,
        (all) => all.select(['projectId', 'sourceId', 'deviceId', 'timestamp', 'data']).orderBy('timestamp', 'desc').orderBy('id', 'desc'),
        (r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }),
      );
    },
    deleteForSource: (projectId, sourceId) => deletedCount(db.deleteFrom('dataRecords').where('projectId', '=', projectId).where('sourceId', '=', sourceId)),
    async prune(projectId, sourceId, before, limit) {
      // a bounded batch: the oldest ids first, one short statement at a time
      const ids = db
        .selectFrom('dataRecords')
        .select('id')
        .where('projectId', '=', projectId)
        .where('sourceId', '=', sourceId)
        .where('timestamp', '<', before)
        .orderBy('timestamp')
        .limit(limit);
      return deletedCount(db.deleteFrom('dataRecords').where('id', 'in', ids));
    },
  };
}
