// Runs of scheduled reports (docs/concepts.md#reports), which are also the reports' work queue: a run is taken
// by one conditional update of its status and lease (claim), so any number of workers share the
// queue; a worker that dies leaves a lease that ends, and another takes the run over.
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { ReportRunRow, ReportRunStatus, ReportRunRepo } from '../../ports/store.js';
import { changedRow, deletedCount, firstOf, pageOf } from './util.js';

export type ReportRunsTable = Columns<ReportRunRow, { outputBytes: number | string | null }>;
type Tables = Database & { reportRuns: ReportRunsTable };
type Db = Kysely<Tables>;

function toRun(r: Selectable<ReportRunsTable>): ReportRunRow {
  return {
    ...r,
    trigger: r.trigger as ReportRunRow['trigger'],
    status: r.status as ReportRunStatus,
    rows: r.rows === null ? null : Number(r.rows),
    outputBytes: r.outputBytes === null ? null : Number(r.outputBytes),
  };
}

export function reportRunRepo(base: Kysely<Database>): ReportRunRepo {
  const db = base as unknown as Db;
  const get = async (id: string) => {
    return firstOf(db.selectFrom('reportRuns').selectAll().where('id', '=', id), toRun);
  };
  return {
    async create(r) {
      const row: ReportRunsTable = {
        ...r,
        status: 'queued',
        startTime: null,
        endTime: null,
        rows: null,
        error: null,
        outputKey: null,
        outputBytes: null,
        claimedBy: null,
        leaseUntil: null,
      };
      await db.insertInto('reportRuns').values(row).execute();
      return toRun(row);
    },
    get,
    async list(reportId, page) {
      const q = db.selectFrom('reportRuns').where('reportId', '=', reportId);
      return pageOf(q, page, (all) => all.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'), toRun);
    },
    async claim(workerId, now, leaseUntil, limit) {
      // queued, or running under a lease that ended (its worker died): at least once
      const claimable = (e: ExpressionBuilder<Tables, 'reportRuns'>) =>
        e.or([e('status', '=', 'queued'), e.and([e('status', '=', 'running'), e('leaseUntil', '<', now)])]);
      const candidates = await db.selectFrom('reportRuns').select('id').where(claimable).orderBy('creationTime').limit(limit).execute();
      const taken: ReportRunRow[] = [];
      for (const { id } of candidates) {
        // optimistic: the conditional update decides between workers that saw the same row
        const won = await changedRow(
          db
            .updateTable('reportRuns')
            .set({ status: 'running', claimedBy: workerId, leaseUntil, startTime: sql<string>`coalesce(start_time, ${now})`, rows: 0 })
            .where('id', '=', id)
            .where(claimable),
        );
        if (won) {
          const run = await get(id);
          if (run) taken.push(run);
        }
      }
      return taken;
    },
    progress: (id, workerId, rows, leaseUntil) =>
      changedRow(db.updateTable('reportRuns').set({ rows, leaseUntil }).where('id', '=', id).where('status', '=', 'running').where('claimedBy', '=', workerId)),
    finish: (id, workerId, o) =>
      changedRow(
        db
          .updateTable('reportRuns')
          .set({ ...o, leaseUntil: null })
          .where('id', '=', id)
          .where('status', '=', 'running')
          .where('claimedBy', '=', workerId),
      ),
    settleDelivery: (id, o) =>
      // a run that wrote its output and holds no lease: waiting for its delivery, or settled (a redelivery)
      changedRow(db.updateTable('reportRuns').set(o).where('id', '=', id).where('leaseUntil', 'is', null).where('outputKey', 'is not', null)),
    async deleteForReport(reportId) {
      const keys = await db.selectFrom('reportRuns').select('outputKey').where('reportId', '=', reportId).execute();
      await db.deleteFrom('reportRuns').where('reportId', '=', reportId).execute();
      return keys.map((k) => k.outputKey).filter((k): k is string => k !== null);
    },
    async prune(before, limit) {
      const rows = await db
        .selectFrom('reportRuns')
        .select(['id', 'outputKey'])
        .where('creationTime', '<', before)
        .where('status', 'in', ['success', 'failure'])
        .orderBy('creationTime')
        .limit(limit)
        .execute();
      if (rows.length === 0) return { removed: 0, outputKeys: [] };
      const removed = await deletedCount(
        db.deleteFrom('reportRuns').where(
          'id',
          'in',
          rows.map((r) => r.id),
        ),
      );
      return { removed, outputKeys: rows.map((r) => r.outputKey).filter((k): k is string => k !== null) };
    },
  };
}
