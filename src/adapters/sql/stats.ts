// Per-minute fleet counters (src/ports/store/stats.ts, docs/api.md#fleet-figures). Adding is one
// upsert per batch that adds to the stored count, so every node's commits add up in the one row
// (exact across a cluster without a flush or a lock of our own). Rows are written in key order:
// two PostgreSQL transactions adding to the same rows then wait on each other, never deadlock.
import { sql, type Kysely } from 'kysely';
import type { StatCount, StatCounter, StatsRepo } from '../../ports/store.js';
import type { RawSqlite } from './sqlite-raw.js';

const UPSERT = `insert into stat_minutes (project_id, counter, minute, n) values (?, ?, ?, ?)
  on conflict (project_id, counter, minute) do update set n = stat_minutes.n + excluded.n`;

const byKey = (a: StatCount, b: StatCount) => a.projectId - b.projectId || a.counter.localeCompare(b.counter) || a.minute.localeCompare(b.minute);

/** the SQLite statements, for repos that add counts inside their own raw transaction */
export function addCountsSqlite(prepare: (sql: string) => { run(...p: unknown[]): unknown }, counts: StatCount[]): void {
  const st = prepare(UPSERT);
  for (const c of [...counts].sort(byKey)) st.run(c.projectId, c.counter, c.minute, c.n);
}

/** the same on any dialect through Kysely: one multi-row statement */
export async function addCountsSql(db: Kysely<any>, counts: StatCount[]): Promise<void> {
  if (counts.length === 0) return;
  const rows = [...counts].sort(byKey).map((c) => sql`(${c.projectId}, ${c.counter}, ${c.minute}, ${c.n})`);
  await sql`insert into stat_minutes (project_id, counter, minute, n) values ${sql.join(rows)}
    on conflict (project_id, counter, minute) do update set n = stat_minutes.n + excluded.n`.execute(db);
}

export function statsRepo(db: Kysely<any>, raw?: RawSqlite): StatsRepo {
  return {
    async add(counts) {
      if (counts.length === 0) return;
      if (raw) return raw((d) => d.atomically(() => addCountsSqlite((s) => d.prepare(s), counts)));
      await addCountsSql(db, counts);
    },
    async minutes(projectId, from, to) {
      const r = await sql<{ counter: StatCounter; minute: string; n: number | string }>`select counter, minute, n from stat_minutes
        where project_id = ${projectId} and minute >= ${from} and minute <= ${to}`.execute(db);
      return r.rows.map((x) => ({ projectId, counter: x.counter, minute: x.minute, n: Number(x.n) }));
    },
    async prune(before, limit) {
      // no index on the minute alone: the table holds a few rows per project and minute kept
      const r = await sql`delete from stat_minutes where (project_id, counter, minute) in
        (select project_id, counter, minute from stat_minutes where minute < ${before} limit ${limit})`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
  };
}
