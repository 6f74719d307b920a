// The worker's side of the delivery queue. Claiming is one UPDATE over a sub-select of due rows:
// on PostgreSQL the sub-select locks `FOR UPDATE SKIP LOCKED`, so concurrent workers take
// disjoint rows without waiting on each other; SQLite has a single writer, which is the same
// guarantee. Outcomes are written only while the lease is held (`claimed_by` = the worker).
import { sql } from 'kysely';
import type { Dialect } from './migrations.js';
import type { Deliveries } from '../../ports/queue.js';
import { toRow, type DeliveriesDb } from './deliveries.js';

// outcomes per UPDATE (7 parameters each)
const COMPLETE_CHUNK = 200;

type LeaseOps = Pick<Deliveries, 'claim' | 'complete' | 'completeMany' | 'release' | 'releaseAll'>;

export function leaseOps(db: DeliveriesDb, dialect: Dialect): LeaseOps {
  return {
    async claim(req) {
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
      // RETURNING order is unspecified: oldest due first
      return rows.map(toRow).sort((a, b) => a.creationTime.localeCompare(b.creationTime) || a.id.localeCompare(b.id));
    },

    async complete(id, workerId, o) {
      const r = await db
        .updateTable('deliveries')
        .set({
          status: o.status,
          attempts: JSON.stringify(o.attempts),
          roundAttempts: o.roundAttempts,
          nextAttemptTime: o.status === 'pending' ? o.nextAttemptTime : null,
          updateTime: o.updateTime,
          claimedBy: null,
        })
        .where('id', '=', id)
        .where('claimedBy', '=', workerId)
        .where('status', '=', 'delivering')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async completeMany(workerId, items) {
      const kept = new Set<string>();
      // one UPDATE ... FROM (rows) per chunk: a round trip (and a WAL append) for many outcomes.
      // The row source is a UNION ALL of SELECTs, which both dialects accept (SQLite names no
      // VALUES columns); the integer is cast so PostgreSQL types the column.
      for (let i = 0; i < items.length; i += COMPLETE_CHUNK) {
        const rows = items.slice(i, i + COMPLETE_CHUNK).map(
          ({ id, outcome: o }) =>
            sql`select ${id} as id, ${o.status} as status, ${JSON.stringify(o.attempts)} as attempts, cast(${o.roundAttempts} as integer) as round_attempts, cast(${o.status === 'pending' ? o.nextAttemptTime : null} as text) as next_attempt_time, ${o.updateTime} as update_time`,
        );
        const r = await sql<{ id: string }>`update deliveries set status = v.status, attempts = v.attempts, round_attempts = v.round_attempts,
          next_attempt_time = v.next_attempt_time, update_time = v.update_time, claimed_by = null
          from (${sql.join(rows, sql` union all `)}) as v
          where deliveries.id = v.id and deliveries.claimed_by = ${workerId} and deliveries.status = 'delivering'
          returning deliveries.id`.execute(db);
        for (const row of r.rows) kept.add(row.id);
      }
      return kept;
    },

    async release(ids, workerId, now) {
      if (ids.length === 0) return;
      await db
        .updateTable('deliveries')
        .set({ status: 'pending', claimedBy: null, nextAttemptTime: now, updateTime: now })
        .where('id', 'in', ids)
        .where('claimedBy', '=', workerId)
        .where('status', '=', 'delivering')
        .execute();
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
}
