// The worker's side of the delivery queue. Claiming is one UPDATE over a sub-select of due rows:
// on PostgreSQL the sub-select locks `FOR UPDATE SKIP LOCKED`, so concurrent workers take
// disjoint rows without waiting on each other; SQLite has a single writer, which is the same
// guarantee. Outcomes are written only while the lease is held (`claimed_by` = the worker).
import { sql } from 'kysely';
import type { Dialect } from './migrations.js';
import type { Deliveries, DeliveryOutcome, DeliveryRow } from '../../ports/queue.js';
import { minuteOf, tally, type StatCount } from '../../ports/store.js';
import { addCountsSql, addCountsSqlite } from './stats.js';
import { fromSnake, toRow, type DeliveriesDb } from './deliveries-rows.js';
import type { RawSqlite } from './sqlite-raw.js';

// outcomes per UPDATE (7 parameters each)
const COMPLETE_CHUNK = 200;

// SQLite, without Kysely (sqlite-raw.ts). A claim reads the due rows, then leases each by its
// key, in one immediate transaction (SQLite has one writer: nobody claims in between); an UPDATE
// ... RETURNING over the sub-select cost twice as much per row. Lanes left out come as one JSON
// array parameter, so one statement serves any number of them.
// The limit is written into the text, not bound: SQLite re-plans a statement whose LIMIT is a
// bound parameter on every run (a re-prepare per claim). Claims are at most a worker's buffer, so
// the distinct texts are few.
export const DUE_SQLITE = (
  excluding: boolean,
  limit: number,
) => `select * from deliveries where next_attempt_time <= ?${excluding ? ' and lane not in (select value from json_each(?))' : ''}
  order by next_attempt_time limit ${limit}`;
// the rows found are leased in one statement, their ids one JSON array parameter: one UPDATE a row
// cost about 0.5 µs more a row (6.1 to 6.4 against 5.7 to 5.8 µs CPU a row for the read and the
// lease, claims of 200 from a queue of 20,000, three runs each; issue #26)
const LEASE_SQLITE = `update deliveries set status = 'delivering', claimed_by = ?, next_attempt_time = ?, update_time = ?
  where id in (select value from json_each(?))`;
// RETURNING costs about twice the UPDATE itself on SQLite (25 against 9 µs a row): when the caller
// gives the row's project, the change count says whether the lease was held.
// One UPDATE a row, not one a batch: a single statement over a JSON array of outcomes (`update ...
// from json_each(?)`, whose change count would prove every lease held) cost 5.7 µs a row against
// 3.7 for a batch of 50 (4.6 against 3.1 for 200): SQLite runs UPDATE FROM in two passes through a
// temporary table and parses the JSON for each column. Even `where id in (select value from
// json_each(?))` with the same values for every row, its floor, cost 4.4 (3.4 for 200). Same
// process, alternating, medians (issue #26); the statement's own work per row (its row and index
// entries rewritten) is most of the cost, a better-sqlite3 run is little of it.
const COMPLETE_SQLITE = `update deliveries set status = ?, attempts = ?, round_attempts = ?, next_attempt_time = ?, update_time = ?, claimed_by = null
  where id = ? and claimed_by = ? and status = 'delivering'`;
const COMPLETE_RETURNING_SQLITE = `${COMPLETE_SQLITE} returning project_id`;
const RELEASE_SQLITE = `update deliveries set status = 'pending', claimed_by = null, next_attempt_time = ?, update_time = ?
  where id = ? and claimed_by = ? and status = 'delivering'`;

// RETURNING order is unspecified: oldest due first
const oldestFirst = (a: DeliveryRow, b: DeliveryRow) => a.creationTime.localeCompare(b.creationTime) || a.id.localeCompare(b.id);

/**
 * docs/api.md#fleet-figures: a finished outcome written under the lease counts once, in the
 * minute it was written; a retry (pending) counts nothing here (the live rows say how many wait).
 */
function countOutcome(counts: StatCount[], projectId: number, o: DeliveryOutcome): void {
  if (o.status === 'success') tally(counts, projectId, 'deliveriesSucceeded', minuteOf(o.updateTime));
  else if (o.status === 'failed' || o.status === 'dropped') tally(counts, projectId, 'deliveriesFailed', minuteOf(o.updateTime));
}

type LeaseOps = Pick<Deliveries, 'claim' | 'complete' | 'completeMany' | 'release' | 'renew' | 'releaseAll'>;

export function leaseOps(db: DeliveriesDb, dialect: Dialect, raw?: RawSqlite): LeaseOps {
  const ops: LeaseOps = {
    async claim(req) {
      if (raw) {
        const excluding = (req.excludeLanes?.length ?? 0) > 0;
        const rows = await raw((d) => {
          if (!Number.isSafeInteger(req.limit) || req.limit < 0) throw new RangeError(`claim limit must be a non-negative integer, got ${req.limit}`);
          const due = d.prepare(DUE_SQLITE(excluding, req.limit));
          const lease = d.prepare(LEASE_SQLITE);
          return d.atomically(
            () => {
              const found = (excluding ? due.all(req.now, JSON.stringify(req.excludeLanes)) : due.all(req.now)) as Record<string, unknown>[];
              if (found.length > 0) lease.run(req.workerId, req.leaseUntil, req.now, JSON.stringify(found.map((r) => r.id)));
              return found;
            },
            { immediate: true, relaxed: true },
          );
        });
        // the row as leased, set on the row read (a spread copy costs kilobytes of heap a row)
        return rows
          .map((r) => {
            const row = fromSnake(r);
            row.status = 'delivering';
            row.claimedBy = req.workerId;
            row.nextAttemptTime = req.leaseUntil;
            row.updateTime = req.now;
            return row;
          })
          .sort(oldestFirst);
      }
      const rows = await db
        .updateTable('deliveries')
        .set({ status: 'delivering', claimedBy: req.workerId, nextAttemptTime: req.leaseUntil, updateTime: req.now })
        .where('id', 'in', (eb) => {
          let due = eb.selectFrom('deliveries').select('id').where('nextAttemptTime', '<=', req.now);
          if (req.excludeLanes?.length) due = due.where('lane', 'not in', req.excludeLanes);
          due = due.orderBy('nextAttemptTime').limit(req.limit);
          return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
        })
        .returningAll()
        .execute();
      return rows.map(toRow).sort(oldestFirst);
    },

    async complete(id, workerId, o) {
      // one outcome is a batch of one: the same statement and the same counting
      return (await ops.completeMany(workerId, [{ id, outcome: o }])).has(id);
    },

    async completeMany(workerId, items) {
      const kept = new Set<string>();
      if (items.length === 0) return kept;
      if (raw) {
        // one prepared UPDATE per outcome, all in one transaction (one WAL commit)
        await raw((d) => {
          const st = d.prepare(COMPLETE_SQLITE);
          const returning = d.prepare(COMPLETE_RETURNING_SQLITE);
          d.atomically(
            () => {
              const counts: StatCount[] = [];
              for (const { id, outcome: o, projectId } of items) {
                const next = o.status === 'pending' ? o.nextAttemptTime : null;
                const attempts = JSON.stringify(o.attempts);
                let project = projectId;
                if (project !== undefined) {
                  if (st.run(o.status, attempts, o.roundAttempts, next, o.updateTime, id, workerId).changes === 0) continue;
                } else {
                  const row = returning.get(o.status, attempts, o.roundAttempts, next, o.updateTime, id, workerId) as { project_id: number } | undefined;
                  if (!row) continue;
                  project = row.project_id;
                }
                kept.add(id);
                countOutcome(counts, project, o);
              }
              addCountsSqlite((s) => d.prepare(s), counts);
            },
            { relaxed: true },
          );
        });
        return kept;
      }
      // one UPDATE ... FROM (rows) per chunk: a round trip (and a WAL append) for many outcomes.
      // The row source is a UNION ALL of SELECTs, which both dialects accept (SQLite names no
      // VALUES columns); the integer is cast so PostgreSQL types the column.
      const outcomes = new Map(items.map((x) => [x.id, x.outcome]));
      const write = async (trx: DeliveriesDb) => {
        const counts: StatCount[] = [];
        for (let i = 0; i < items.length; i += COMPLETE_CHUNK) {
          const rows = items
            .slice(i, i + COMPLETE_CHUNK)
            .map(
              ({ id, outcome: o }) =>
                sql`select ${id} as id, ${o.status} as status, ${JSON.stringify(o.attempts)} as attempts, cast(${o.roundAttempts} as integer) as round_attempts, cast(${o.status === 'pending' ? o.nextAttemptTime : null} as text) as next_attempt_time, ${o.updateTime} as update_time`,
            );
          const r = await sql<{
            id: string;
            projectId: number;
          }>`update deliveries set status = v.status, attempts = v.attempts, round_attempts = v.round_attempts,
            next_attempt_time = v.next_attempt_time, update_time = v.update_time, claimed_by = null
            from (${sql.join(rows, sql` union all `)}) as v
            where deliveries.id = v.id and deliveries.claimed_by = ${workerId} and deliveries.status = 'delivering'
            returning deliveries.id, deliveries.project_id`.execute(trx);
          for (const row of r.rows) {
            kept.add(row.id);
            // the CamelCasePlugin renames result columns of raw statements too
            countOutcome(counts, row.projectId, outcomes.get(row.id)!);
          }
        }
        // the counts commit with the outcomes they count (docs/api.md#fleet-figures)
        await addCountsSql(trx, counts);
      };
      if (db.isTransaction) await write(db);
      else
        await db.transaction().execute(async (trx) => {
          // relaxed, as SQLite's above (sqlite-raw.ts, RELAXED): a lost outcome is a delivery sent again
          if (dialect === 'postgres') await sql`set local synchronous_commit = off`.execute(trx);
          await write(trx);
        });
      return kept;
    },

    async release(ids, workerId, now) {
      if (ids.length === 0) return;
      if (raw) {
        await raw((d) => {
          const st = d.prepare(RELEASE_SQLITE);
          d.atomically(
            () => {
              for (const id of ids) st.run(now, now, id, workerId);
            },
            { relaxed: true },
          );
        });
        return;
      }
      await db
        .updateTable('deliveries')
        .set({ status: 'pending', claimedBy: null, nextAttemptTime: now, updateTime: now })
        .where('id', 'in', ids)
        .where('claimedBy', '=', workerId)
        .where('status', '=', 'delivering')
        .execute();
    },

    async renew(ids, workerId, leaseUntil) {
      let n = 0;
      // in chunks: one bound parameter per id
      for (let i = 0; i < ids.length; i += COMPLETE_CHUNK) {
        const r = await db
          .updateTable('deliveries')
          .set({ nextAttemptTime: leaseUntil })
          .where('id', 'in', ids.slice(i, i + COMPLETE_CHUNK))
          .where('claimedBy', '=', workerId)
          .where('status', '=', 'delivering')
          .executeTakeFirst();
        n += Number(r.numUpdatedRows);
      }
      return n;
    },
    async releaseAll(now) {
      const r = await db
        .updateTable('deliveries')
        .set({ status: 'pending', claimedBy: null, nextAttemptTime: now, updateTime: now })
        .where('status', '=', 'delivering')
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
  return ops;
}
