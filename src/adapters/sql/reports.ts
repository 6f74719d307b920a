// Scheduled reports (docs/concepts.md#reports). The schedule tick is decided by one conditional update of
// `next_run_time` (claimTick): whichever worker moves it first fires the tick, with any number of
// workers on one database and no lock held across statements. Runs: report-runs.ts.
import type { Kysely, Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { ReportDestination, ReportFilter, ReportFormat, ReportKind, ReportRow, ReportRepo } from '../../ports/store.js';
import { changedRow, deletedRow, firstOf, fromJson, pageOf, rowsOf, toJson } from './util.js';

/** the schedule is two columns; JSON is text and booleans 0/1 on both dialects */
export type ReportsTable = Columns<
  ReportRow,
  { kind: string; filter: string | null; format: string; cron: string; timezone: string; destination: string; enabled: number },
  'schedule'
>;
type Db = Kysely<Database & { reports: ReportsTable }>;

function toReport({ cron, timezone, ...r }: Selectable<ReportsTable>): ReportRow {
  return {
    ...r,
    kind: r.kind as ReportKind,
    filter: fromJson<ReportFilter>(r.filter),
    format: r.format as ReportFormat,
    schedule: { cron, timezone },
    destination: JSON.parse(r.destination) as ReportDestination,
    enabled: Number(r.enabled) === 1,
  };
}

function reportColumns(r: Partial<ReportRow>): Partial<ReportsTable> {
  const out: Partial<ReportsTable> = {};
  for (const k of ['name', 'description', 'kind', 'window', 'format', 'keySealed', 'nextRunTime'] as const) {
    if (r[k] !== undefined) (out as Record<string, unknown>)[k] = r[k];
  }
  if (r.filter !== undefined) out.filter = toJson(r.filter);
  if (r.schedule !== undefined) Object.assign(out, { cron: r.schedule.cron, timezone: r.schedule.timezone });
  if (r.destination !== undefined) out.destination = JSON.stringify(r.destination);
  if (r.enabled !== undefined) out.enabled = r.enabled ? 1 : 0;
  return out;
}

export function reportRepo(base: Kysely<Database>): ReportRepo {
  const db = base as unknown as Db;
  return {
    async create(r) {
      await db
        .insertInto('reports')
        .values({
          ...(reportColumns(r) as ReportsTable),
          id: r.id,
          projectId: r.projectId,
          creationTime: r.creationTime,
          modificationTime: r.modificationTime,
          lastRunTime: r.lastRunTime,
          nextRunTime: r.nextRunTime,
          leaseOwner: r.leaseOwner,
        })
        .execute();
    },
    get: (id) => firstOf(db.selectFrom('reports').selectAll().where('id', '=', id), toReport),
    list: (projectId, page) =>
      pageOf(db.selectFrom('reports').where('projectId', '=', projectId), page, (q) => q.selectAll().orderBy('creationTime').orderBy('id'), toReport),
    update: (id, patch) =>
      changedRow(
        db
          .updateTable('reports')
          .set({ ...reportColumns(patch), modificationTime: patch.modificationTime })
          .where('id', '=', id),
      ),
    delete: (id) => deletedRow(db.deleteFrom('reports').where('id', '=', id)),
    due: (now, limit) =>
      rowsOf(
        db
          .selectFrom('reports')
          .selectAll()
          .where('enabled', '=', 1)
          .where('nextRunTime', 'is not', null)
          .where('nextRunTime', '<=', now)
          .orderBy('nextRunTime')
          .limit(limit),
        toReport,
      ),
    claimTick: (id, due, next, owner) =>
      // the lease: whoever moves next_run_time away from `due` first fires this tick
      changedRow(
        db
          .updateTable('reports')
          .set({ nextRunTime: next, lastRunTime: due, leaseOwner: owner })
          .where('id', '=', id)
          .where('enabled', '=', 1)
          .where('nextRunTime', '=', due),
      ),
  };
}
