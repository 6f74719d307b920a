// Device log requests (docs/concepts.md#log-requests). One open request per device is the unique `open_device_id`
// column (the device id while requested or uploading, null after): the database, not a
// read-then-write, refuses the second one. Each status change is one conditional update.
import type { Kysely, Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { LogRequestRow, LogRequestStatus, LogRequestRepo } from '../../ports/store.js';
import { OPEN_LOG_REQUEST } from '../../ports/store.js';
import { changedRow, deletedCount, deletedRow, firstOf, fromJson, insertedRow, pageOf, rowsOf, toJson } from './util.js';

export type LogRequestsTable = Columns<
  LogRequestRow,
  {
    /** the device id while the request is open, null after: the unique column that allows one open request */
    openDeviceId: number | null;
    startTime: string | null;
    endTime: string | null;
    prefixes: string | null;
    uploadSize: number | string | null;
  },
  'start' | 'end'
>;
type Db = Kysely<Database & { logRequests: LogRequestsTable }>;

function toRow({ openDeviceId: _open, startTime, endTime, ...r }: Selectable<LogRequestsTable>): LogRequestRow {
  return {
    ...r,
    status: r.status as LogRequestStatus,
    start: startTime,
    end: endTime,
    prefixes: fromJson<string[]>(r.prefixes),
    uploadSize: r.uploadSize === null ? null : Number(r.uploadSize),
  };
}

/** a request that is not open no longer holds its device */
const isOpen = (s: LogRequestStatus | undefined) => s === undefined || OPEN_LOG_REQUEST.includes(s);

export function logRequestRepo(base: Kysely<Database>): LogRequestRepo {
  const db = base as unknown as Db;
  return {
    create: (r) =>
      insertedRow(
        db.insertInto('logRequests').values({
          id: r.id,
          projectId: r.projectId,
          deviceId: r.deviceId,
          openDeviceId: r.deviceId,
          status: 'requested',
          tokenHash: r.tokenHash,
          startTime: r.start,
          endTime: r.end,
          prefixes: toJson(r.prefixes),
          creationTime: r.creationTime,
        }),
        ['openDeviceId'],
      ),
    get: (id) => firstOf(db.selectFrom('logRequests').selectAll().where('id', '=', id), toRow),
    getByTokenHash: (h) => firstOf(db.selectFrom('logRequests').selectAll().where('tokenHash', '=', h), toRow),
    async list(deviceId, page) {
      const q = db.selectFrom('logRequests').where('deviceId', '=', deviceId);
      return pageOf(q, page, (all) => all.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'), toRow);
    },
    openFor: (deviceId) => firstOf(db.selectFrom('logRequests').selectAll().where('openDeviceId', '=', deviceId), toRow),
    async transition(id, from, patch, uploadId) {
      const values: Partial<LogRequestsTable> = { ...patch };
      if (!isOpen(patch.status)) values.openDeviceId = null;
      let q = db
        .updateTable('logRequests')
        .set(values)
        .where('id', '=', id)
        .where('status', 'in', [...from]);
      if (uploadId !== undefined) q = q.where('uploadId', '=', uploadId);
      if (!(await changedRow(q))) return undefined;
      return firstOf(db.selectFrom('logRequests').selectAll().where('id', '=', id), toRow);
    },
    delete: (id) => deletedRow(db.deleteFrom('logRequests').where('id', '=', id)),
    expired: (now, limit) =>
      rowsOf(
        db
          .selectFrom('logRequests')
          .selectAll()
          .where('status', 'in', [...OPEN_LOG_REQUEST])
          .where('uploadExpires', '<', now)
          .orderBy('uploadExpires')
          .limit(limit),
        toRow,
      ),
    listForDevice: (deviceId) => rowsOf(db.selectFrom('logRequests').selectAll().where('deviceId', '=', deviceId), toRow),
    deleteForDevice: (deviceId) => deletedCount(db.deleteFrom('logRequests').where('deviceId', '=', deviceId)),
  };
}
