// Device log requests (docs/concepts.md#log-requests). One open request per device is the unique `open_device_id`
// column (the device id while requested or uploading, null after): the database, not a
// read-then-write, refuses the second one. Each status change is one conditional update.
import type { Kysely, Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { LogRequestRow, LogRequestStatus, LogRequestRepo } from '../../ports/store.js';
import { OPEN_LOG_REQUEST } from '../../ports/store.js';
import { pageOf } from './util.js';

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
    prefixes: r.prefixes === null ? null : (JSON.parse(r.prefixes) as string[]),
    uploadSize: r.uploadSize === null ? null : Number(r.uploadSize),
  };
}

/** a request that is not open no longer holds its device */
const isOpen = (s: LogRequestStatus | undefined) => s === undefined || OPEN_LOG_REQUEST.includes(s);

export function logRequestRepo(base: Kysely<Database>): LogRequestRepo {
  const db = base as unknown as Db;
  const one = async (q: Promise<Selectable<LogRequestsTable> | undefined>) => {
    const r = await q;
    return r && toRow(r);
  };
  return {
    async create(r) {
      const res = await db
        .insertInto('logRequests')
        .values({
          id: r.id,
          projectId: r.projectId,
          deviceId: r.deviceId,
          openDeviceId: r.deviceId,
          status: 'requested',
          tokenHash: r.tokenHash,
          startTime: r.start,
          endTime: r.end,
          prefixes: r.prefixes === null ? null : JSON.stringify(r.prefixes),
          creationTime: r.creationTime,
        })
        .onConflict((oc) => oc.column('openDeviceId').doNothing())
        .executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    get: (id) => one(db.selectFrom('logRequests').selectAll().where('id', '=', id).executeTakeFirst()),
    getByTokenHash: (h) => one(db.selectFrom('logRequests').selectAll().where('tokenHash', '=', h).executeTakeFirst()),
    async list(deviceId, page) {
      const q = db.selectFrom('logRequests').where('deviceId', '=', deviceId);
      return pageOf(q, page, (all) => all.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'), toRow);
    },
    openFor: (deviceId) => one(db.selectFrom('logRequests').selectAll().where('openDeviceId', '=', deviceId).executeTakeFirst()),
    async transition(id, from, patch, uploadId) {
      const values: Partial<LogRequestsTable> = { ...patch };
      if (!isOpen(patch.status)) values.openDeviceId = null;
      let q = db
        .updateTable('logRequests')
        .set(values)
        .where('id', '=', id)
        .where('status', 'in', [...from]);
      if (uploadId !== undefined) q = q.where('uploadId', '=', uploadId);
      const res = await q.executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return undefined;
      return one(db.selectFrom('logRequests').selectAll().where('id', '=', id).executeTakeFirst());
    },
    async delete(id) {
      const res = await db.deleteFrom('logRequests').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },
    async expired(now, limit) {
      const rows = await db
        .selectFrom('logRequests')
        .selectAll()
        .where('status', 'in', [...OPEN_LOG_REQUEST])
        .where('uploadExpires', '<', now)
        .orderBy('uploadExpires')
        .limit(limit)
        .execute();
      return rows.map(toRow);
    },
    async listForDevice(deviceId) {
      const rows = await db.selectFrom('logRequests').selectAll().where('deviceId', '=', deviceId).execute();
      return rows.map(toRow);
    },
    async deleteForDevice(deviceId) {
      const res = await db.deleteFrom('logRequests').where('deviceId', '=', deviceId).executeTakeFirst();
      return Number(res.numDeletedRows);
    },
  };
}
