// The durable delivery queue (src/ports/queue.ts) as a table beside the records, so an event and
// its deliveries commit in one transaction. This file: the rows, the log and the queue's
// upkeep; the worker's side (claim, outcomes, leases) is in deliveries-lease.ts, the table and
// row mapping both use in deliveries-rows.ts.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './migrations.js';
import { laneOf, type Deliveries, type NewDelivery } from '../../ports/queue.js';
import { leaseOps } from './deliveries-lease.js';
import { toRow, type DeliveriesDb } from './deliveries-rows.js';
import { countOf, deletedCount, firstOf, pageOf } from './util.js';
import type { RawSqlite } from './sqlite-raw.js';
import { rowsInsert } from './sqlite-rows.js';

type Db = DeliveriesDb;

// 15 columns a row: well within both dialects' limits per statement
const INSERT_CHUNK = 500;
// SQLite: DELIVERY_ROWS rows a statement run, the rest one by one (sqlite-rows.ts), as the events' insert (logs.ts).
// Measured when the rows were written inside the event commit's transaction in a savepoint
// (SqliteConn.atomically), a multi-row INSERT cost more, not less (8.9 µs a row against 5.2 for
// 40 rows in runs of 8): it kept a statement journal that, under an open savepoint, grew past
// SQLite's in-memory spill threshold and went to a temporary file. The event commit takes no
// savepoint since (Store.transaction's `whole`), and runs win again: in a transaction of 50 events
// and their 50 deliveries, better-sqlite3's runs took 33.0 thousand instructions a delivery in runs
// of 8 (32.8 in runs of 16, 35.6 in runs of 32) against 37.7 one by one (callgrind, 100
// transactions each), and the fastest of 60 alternating rounds 4.8 µs CPU a delivery against 5.6
// (issue #26). The pipeline's commits hold about 50 deliveries (one per event, one webhook).
const DELIVERY_ROWS = 8;

/** what every row of one insertMany shares */
interface Shared {
  status: string;
  /** the lease's end when claimed on insert, else each row's creation time */
  next: string | undefined;
  claimedBy: string | null;
}

const insertSqlite = rowsInsert<readonly NewDelivery[], Shared>({
  table: 'deliveries',
  columns: [
    'id',
    'project_id',
    'module_id',
    'kind',
    'lane',
    'event_id',
    'event_type',
    'payload',
    'status',
    'attempts',
    'round_attempts',
    'next_attempt_time',
    'creation_time',
    'update_time',
    'claimed_by',
  ],
  constants: { attempts: "'[]'", round_attempts: '0' },
  rows: DELIVERY_ROWS,
  write(values, p, rows, i, shared) {
    const r = rows[i];
    values[p] = r.id;
    values[p + 1] = r.projectId;
    values[p + 2] = r.moduleId;
    values[p + 3] = r.kind;
    values[p + 4] = laneOf(r);
    values[p + 5] = r.eventId;
    values[p + 6] = r.eventType;
    values[p + 7] = r.payload;
    values[p + 8] = shared.status;
    values[p + 9] = shared.next ?? r.creationTime;
    values[p + 10] = r.creationTime;
    values[p + 11] = r.creationTime;
    values[p + 12] = shared.claimedBy;
  },
});

export function deliveryRepo(base: Kysely<Database>, dialect: Dialect, raw?: RawSqlite): Deliveries {
  const db = base as unknown as Db;
  const repo: Deliveries = {
    async insertMany(rows, claim) {
      if (rows.length === 0) return;
      // claimed on insert: leased to the worker at once, due again when the lease ends
      const status = claim ? 'delivering' : 'pending';
      const claimedBy = claim?.workerId ?? null;
      if (raw) {
        const shared: Shared = { status, next: claim?.leaseUntil, claimedBy };
        await raw((d) => d.atomically(() => insertSqlite.run(d, rows, rows.length, shared)));
        return;
      }
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const values = rows.slice(i, i + INSERT_CHUNK).map((d) => ({
          ...d,
          lane: laneOf(d),
          status,
          attempts: '[]',
          roundAttempts: 0,
          nextAttemptTime: claim?.leaseUntil ?? d.creationTime,
          updateTime: d.creationTime,
          claimedBy,
        }));
        await db.insertInto('deliveries').values(values).execute();
      }
    },

    get: (projectId, moduleId, id) =>
      firstOf(db.selectFrom('deliveries').selectAll().where('id', '=', id).where('projectId', '=', projectId).where('moduleId', '=', moduleId), toRow),

    async list(f, page) {
      let q = db.selectFrom('deliveries').where('projectId', '=', f.projectId).where('moduleId', '=', f.moduleId);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.since) q = q.where('creationTime', '>=', f.since);
      return pageOf(q, page, (all) => all.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'), toRow);
    },

    ...leaseOps(db, dialect, raw),

    async redeliver(projectId, moduleId, id, now) {
      // a row being delivered right now is left to its worker: its outcome would overwrite ours
      await db
        .updateTable('deliveries')
        .set({ status: 'pending', roundAttempts: 0, nextAttemptTime: now, updateTime: now, claimedBy: null })
        .where('id', '=', id)
        .where('projectId', '=', projectId)
        .where('moduleId', '=', moduleId)
        .where('status', '!=', 'delivering')
        .execute();
      return repo.get(projectId, moduleId, id);
    },

    deleteForModule: (projectId, moduleId) => deletedCount(db.deleteFrom('deliveries').where('projectId', '=', projectId).where('moduleId', '=', moduleId)),

    async prune(before, limit) {
      // oldest rows sit first in the table: a short scan finds them without an index of its own
      const ids = db.selectFrom('deliveries').select('id').where('creationTime', '<', before).where('nextAttemptTime', 'is', null).limit(limit);
      return deletedCount(db.deleteFrom('deliveries').where('id', 'in', ids));
    },

    async stats() {
      const rows = await db
        .selectFrom('deliveries')
        .select(['status', (e) => e.fn.countAll().as('n'), (e) => e.fn.min('creationTime').as('oldest')])
        .where('nextAttemptTime', 'is not', null)
        .groupBy('status')
        .execute();
      let pending = 0;
      let delivering = 0;
      let oldest: string | null = null;
      for (const r of rows) {
        if (r.status === 'pending') pending = countOf(r);
        else if (r.status === 'delivering') delivering = countOf(r);
        const o = r.oldest as string | null;
        if (o && (!oldest || o < oldest)) oldest = o;
      }
      return { pending, delivering, oldestPendingTime: oldest };
    },

    async liveStats(projectId) {
      // through deliveries_due (live rows only): `project_id + 0` keeps the planner off
      // deliveries_module, whose range for a project spans its whole finished history
      const r = await sql<{ retrying: number | string | null; oldest: string | null }>`select
          sum(case when round_attempts > 0 then 1 else 0 end) as retrying, min(creation_time) as oldest
        from deliveries where next_attempt_time is not null and project_id + 0 = ${projectId}`.execute(db);
      const row = r.rows[0];
      return { retrying: Number(row?.retrying ?? 0), oldestPendingTime: row?.oldest ?? null };
    },
  };
  return repo;
}
