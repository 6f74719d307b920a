// Scheduled reports (docs/concepts.md#reports). The schedule tick is decided by one conditional update of
// `next_run_time` (claimTick): whichever worker moves it first fires the tick, with any number of
// workers on one database and no lock held across statements. Runs: report-runs.ts.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';
import type { ReportDestination, ReportFilter, ReportFormat, ReportKind, ReportRow, ReportRepo } from '../../ports/store.js';
import { countOf } from './util.js';

export interface ReportsTable {
  id: string;
  projectId: number;
  name: string;
  description: string | null;
  kind: string;
  filter: string | null;
  window: string | null;
  format: string;
  cron: string;
  timezone: string;
  destination: string;
  keySealed: string | null;
  enabled: number;
  creationTime: string;
  modificationTime: string;
  lastRunTime: string | null;
  nextRunTime: string | null;
  leaseOwner: string | null;
}
type Db = Kysely<Database & { reports: ReportsTable }>;

function toReport(r: Selectable<ReportsTable>): ReportRow {
  return {
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    description: r.description,
    kind: r.kind as ReportKind,
    filter: r.filter === null ? null : (JSON.parse(r.filter) as ReportFilter),
    window: r.window,
    format: r.format as ReportFormat,
    schedule: { cron: r.cron, timezone: r.timezone },
    destination: JSON.parse(r.destination) as ReportDestination,
    keySealed: r.keySealed,
    enabled: Number(r.enabled) === 1,
    creationTime: r.creationTime,
    modificationTime: r.modificationTime,
    lastRunTime: r.lastRunTime,
    nextRunTime: r.nextRunTime,
    leaseOwner: r.leaseOwner,
  };
}

function reportColumns(r: Partial<ReportRow>): Partial<ReportsTable> {
  const out: Partial<ReportsTable> = {};
  for (const k of ['name', 'description', 'kind', 'window', 'format', 'keySealed', 'nextRunTime'] as const) {
    if (r[k] !== undefined) (out as Record<string, unknown>)[k] = r[k];
  }
  if (r.filter !== undefined) out.filter = r.filter === null ? null : JSON.stringify(r.filter);
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
    async get(id) {
      const r = await db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toReport(r);
    },
    async list(projectId, page) {
      const q = db.selectFrom('reports').where('projectId', '=', projectId);
      const total = countOf(await q.select((e) => e.fn.countAll().as('n')).executeTakeFirst());
      const rows = await q.selectAll().orderBy('creationTime').orderBy('id').offset(page.skip).limit(page.limit).execute();
      return { total, items: rows.map(toReport) };
    },
    async update(id, patch) {
      const res = await db
        .updateTable('reports')
        .set({ ...reportColumns(patch), modificationTime: patch.modificationTime })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    async delete(id) {
      const res = await db.deleteFrom('reports').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },
    async due(now, limit) {
      const rows = await db
        .selectFrom('reports')
        .selectAll()
        .where('enabled', '=', 1)
        .where('nextRunTime', 'is not', null)
        .where('nextRunTime', '<=', now)
        .orderBy('nextRunTime')
        .limit(limit)
        .execute();
      return rows.map(toReport);
    },
    async claimTick(id, due, next, owner) {
      // the lease: whoever moves next_run_time away from `due` first fires this tick
      const res = await db
        .updateTable('reports')
        .set({ nextRunTime: next, lastRunTime: due, leaseOwner: owner })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .where('nextRunTime', '=', due)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    },
  };
}
