// Access logs, general logs and the events history: append-only, listed newest first.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { EventRecord, EventRow, Store } from '../../ports/store.js';
import { pageOf } from './util.js';
import { precompiled } from './statements.js';
import type { RawSqlite } from './sqlite-raw.js';
import { insertAccessLogsSqlite, rowValues } from './access-log-protocol.js';
import { rowsInsert } from './sqlite-rows.js';
import type { AccessLogWriter } from './access-log-writer.js';

type Db = Kysely<Database>;

const eventColumns = (row: EventRow) => {
  const e = row.event;
  return {
    id: row.id,
    projectId: row.projectId,
    homeId: e.homeId ?? null,
    deviceId: e.originDeviceId ?? null,
    eventType: e.eventType,
    timestamp: e.timestamp,
    body: row.json ?? JSON.stringify(e),
  };
};
// SQLite: EVENT_ROWS rows a statement run, the rest one by one (sqlite-rows.ts). A run per row cost
// about a fifth more per row than a run per 32 (issue #26), and a commit of the ingest bench holds
// about a hundred events.
const EVENT_ROWS = 32;
const insertEventsSqlite = rowsInsert<readonly EventRow[]>({
  table: 'events',
  columns: ['id', 'project_id', 'home_id', 'device_id', 'event_type', 'timestamp', 'body'],
  rows: EVENT_ROWS,
  // eventColumns' values without its object: one fewer per event
  write(values, p, rows, i) {
    const row = rows[i];
    const e = row.event;
    values[p] = row.id;
    values[p + 1] = row.projectId;
    values[p + 2] = e.homeId ?? null;
    values[p + 3] = e.originDeviceId ?? null;
    values[p + 4] = e.eventType;
    values[p + 5] = e.timestamp;
    values[p + 6] = row.json ?? JSON.stringify(e);
  },
});
// 7 parameters a row: well within both dialects' limits per statement
const EVENT_CHUNK = 500;

/** `writer`: SQLite in a file, outside a transaction (a transaction's rows are written in it) */
export function logRepos(db: Db, raw?: RawSqlite, writer?: AccessLogWriter): Pick<Store, 'accessLogs' | 'logs' | 'events'> {
  const insertEvent = precompiled(db, () =>
    db.insertInto('events').values({ id: '', projectId: 0, homeId: null, deviceId: null, eventType: '', timestamp: '', body: '' }),
  );
  return {
    accessLogs: {
      async insertMany(rows) {
        if (rows.length === 0) return;
        // every authenticated request writes a row (docs/operations.md#logs): on SQLite in a file, by the
        // writer thread (access-log-writer.ts); else on this connection, by the same prepared
        // statements in one transaction (Kysely's multi-row insert cost 3 µs a row to build)
        if (writer) return writer.write(rows);
        if (raw) {
          const values = rowValues(rows);
          await raw((d) => d.atomically(() => insertAccessLogsSqlite.run(d, values, rows.length, undefined)));
          return;
        }
        // chunked: a statement's bound parameters are capped
        for (let i = 0; i < rows.length; i += 200) {
          await db
            .insertInto('accessLogs')
            .values(rows.slice(i, i + 200))
            .execute();
        }
      },
      async list(f, page) {
        let q = db.selectFrom('accessLogs').where('projectId', '=', f.projectId);
        if (f.since) q = q.where('timestamp', '>=', f.since);
        if (f.until) q = q.where('timestamp', '<', f.until);
        if (f.method) q = q.where('method', '=', f.method);
        if (f.statusCode !== undefined) q = q.where('statusCode', '=', f.statusCode);
        // exact, case-sensitive prefix on both dialects (LIKE is ASCII-insensitive on SQLite);
        // substr counts characters (code points), not UTF-16 units as String#length does
        if (f.pathPrefix) q = q.where(sql`substr(${sql.ref('path')}, 1, ${[...f.pathPrefix].length})`, '=', f.pathPrefix);
        return pageOf(
          q,
          page,
          (all) =>
            all.select(['projectId', 'clientIp', 'latency', 'method', 'path', 'statusCode', 'timestamp']).orderBy('timestamp', 'desc').orderBy('id', 'desc'),
          (r) => ({ ...r, latency: Number(r.latency) }),
        );
      },
    },

    logs: {
      async insert(row) {
        await db
          .insertInto('generalLogs')
          .values({ ...row, caller: row.caller ? JSON.stringify(row.caller) : null })
          .execute();
      },
      async list(f, page) {
        let q = db.selectFrom('generalLogs').where('projectId', '=', f.projectId);
        if (f.since) q = q.where('timestamp', '>=', f.since);
        if (f.until) q = q.where('timestamp', '<', f.until);
        if (f.level !== undefined) q = q.where('level', '>=', f.level);
        if (f.source) q = q.where('source', '=', f.source);
        return pageOf(
          q,
          page,
          (all) => all.select(['projectId', 'caller', 'level', 'source', 'text', 'timestamp']).orderBy('timestamp', 'desc').orderBy('id', 'desc'),
          (r) => ({ ...r, caller: r.caller ? JSON.parse(r.caller) : null }),
        );
      },
    },

    events: {
      // every accepted event (MQTT ingest): compiled once, not per row (statements.ts)
      async insert(row) {
        const e = row.event;
        await insertEvent(row.id, row.projectId, e.homeId ?? null, e.originDeviceId ?? null, e.eventType, e.timestamp, JSON.stringify(e));
      },
      // the event pipeline's group commit: prepared statements of EVENT_ROWS rows and of one on
      // SQLite, multi-row statements on PostgreSQL (a round trip each)
      async insertMany(rows) {
        if (rows.length === 0) return;
        if (raw) {
          await raw((d) => d.atomically(() => insertEventsSqlite.run(d, rows, rows.length, undefined)));
          return;
        }
        for (let i = 0; i < rows.length; i += EVENT_CHUNK)
          await db
            .insertInto('events')
            .values(rows.slice(i, i + EVENT_CHUNK).map(eventColumns))
            .execute();
      },
      async list(f, page) {
        let q = db.selectFrom('events').where('projectId', '=', f.projectId);
        if (f.homeId !== undefined) q = q.where('homeId', '=', f.homeId);
        if (f.deviceId !== undefined) q = q.where('deviceId', '=', f.deviceId);
        if (f.eventType) q = q.where('eventType', '=', f.eventType);
        if (f.since) q = q.where('timestamp', '>=', f.since);
        if (f.until) q = q.where('timestamp', '<', f.until);
        return pageOf(
          q,
          page,
          (all) => all.select(['id', 'projectId', 'body']).orderBy('timestamp', 'desc').orderBy('id', 'desc'),
          (r) => ({ id: r.id, projectId: r.projectId, event: JSON.parse(r.body) as EventRecord }),
        );
      },
    },
  };
}
