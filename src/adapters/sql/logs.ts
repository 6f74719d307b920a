// Access logs, general logs and the events history: append-only, listed newest first.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { EventRecord, EventRow, Store } from '../../ports/store.js';
import { pageOf } from './util.js';
import { precompiled } from './statements.js';
import type { RawSqlite } from './sqlite-raw.js';
import { INSERT_ACCESS_LOG_SQLITE, INSERT_ACCESS_LOGS_SQLITE, insertAccessLogValues, rowValues } from './access-log-protocol.js';
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
const INSERT_EVENT_SQLITE = 'insert into events (id, project_id, home_id, device_id, event_type, timestamp, body) values (?, ?, ?, ?, ?, ?, ?)';
// SQLite: EVENT_ROWS rows a statement run, the rest one by one. A run per row cost about a fifth more
// per row than a run per 32 (a better-sqlite3 call, its bindings and a step each; issue #26), and a
// commit of the ingest bench holds about a hundred events. SQLite inserts a VALUES list in order.
const EVENT_ROWS = 32;
const INSERT_EVENTS_SQLITE = INSERT_EVENT_SQLITE.replace(/values .*$/, 'values ' + Array(EVENT_ROWS).fill('(?, ?, ?, ?, ?, ?, ?)').join(', '));
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
          await raw((d) => {
            const chunk = d.prepare(INSERT_ACCESS_LOGS_SQLITE);
            const one = d.prepare(INSERT_ACCESS_LOG_SQLITE);
            d.atomically(() => insertAccessLogValues(chunk, one, rowValues(rows)));
          });
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
      // the event pipeline's group commit: one prepared statement run per row on SQLite,
      // multi-row statements on PostgreSQL (a round trip each)
      async insertMany(rows) {
        if (rows.length === 0) return;
        if (raw) {
          await raw((d) => {
            const one = d.prepare(INSERT_EVENT_SQLITE);
            d.atomically(() => {
              let i = 0;
              if (rows.length >= EVENT_ROWS) {
                const many = d.prepare(INSERT_EVENTS_SQLITE);
                // eventColumns' values without its object: one fewer per event; one array for every run (bound, not kept)
                const values: unknown[] = new Array(EVENT_ROWS * 7);
                for (; i + EVENT_ROWS <= rows.length; i += EVENT_ROWS) {
                  let p = 0;
                  for (let j = i; j < i + EVENT_ROWS; j++) {
                    const row = rows[j];
                    const e = row.event;
                    values[p++] = row.id;
                    values[p++] = row.projectId;
                    values[p++] = e.homeId ?? null;
                    values[p++] = e.originDeviceId ?? null;
                    values[p++] = e.eventType;
                    values[p++] = e.timestamp;
                    values[p++] = row.json ?? JSON.stringify(e);
                  }
                  many.run(values);
                }
              }
              for (; i < rows.length; i++) {
                const row = rows[i];
                const e = row.event;
                one.run(row.id, row.projectId, e.homeId ?? null, e.originDeviceId ?? null, e.eventType, e.timestamp, row.json ?? JSON.stringify(e));
              }
            });
          });
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
