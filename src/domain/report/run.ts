// POST /scheduledReports/{id}/run (docs/concepts.md#reports → 202 a run, queued), the runs of a report, and a
// run's output (the CSV or JSON it produced). A manual run covers the window ending now.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged, ReportRunRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import type { Run } from './schemas.js';
import { loadReport } from './access.js';
import { toRun } from './view.js';
import type { ReportDeps } from './create.js';

/** the bus `work` queue name report workers listen for */
export const REPORT_QUEUE = 'reports';
export const newRunId = () => `run-${randomBytes(8).toString('hex')}`;

export async function runReportNow({
  deps,
  caller,
  input: { reportId },
}: VerbArgs<ReportDeps & StoreOf<'logs' | 'reportRuns' | 'reports'>, { reportId: string }>): Promise<Run> {
  const r = await loadReport(deps, caller, reportId);
  const now = deps.clock.now().toISOString();
  const run = await deps.store.reportRuns.create({
    id: newRunId(),
    reportId: r.id,
    projectId: r.projectId,
    trigger: 'manual',
    dueTime: now,
    creationTime: now,
  });
  await deps.bus.publish('work', { queue: REPORT_QUEUE });
  await writeLog({ deps, input: { projectId: r.projectId, caller, level: 'info', source: 'reports', text: `report ${r.id} run ${run.id} queued by hand` } });
  return toRun(run, r);
}

export async function listRuns({
  deps,
  caller,
  input: { reportId, page },
}: VerbArgs<ReportDeps & StoreOf<'reportRuns' | 'reports'>, { reportId: string; page: Page }>): Promise<Paged<Run>> {
  const r = await loadReport(deps, caller, reportId);
  const runs = await deps.store.reportRuns.list(r.id, page);
  return { total: runs.total, items: runs.items.map((x) => toRun(x, r)) };
}

async function loadRun(deps: StoreOf<'reportRuns' | 'reports'>, caller: Caller, reportId: string, runId: string) {
  const r = await loadReport(deps, caller, reportId);
  const run = runId.length <= 64 ? await deps.store.reportRuns.get(runId) : undefined;
  if (!run || run.reportId !== r.id) throw new AppError('NOT_FOUND', { runId });
  return { report: r, run };
}

export async function getRun({
  deps,
  caller,
  input: { reportId, runId },
}: VerbArgs<ReportDeps & StoreOf<'reportRuns' | 'reports'>, { reportId: string; runId: string }>): Promise<Run> {
  const { report, run } = await loadRun(deps, caller, reportId, runId);
  return toRun(run, report);
}

export interface RunOutput {
  contentType: string;
  filename: string;
  size: number;
  stream: AsyncIterable<Uint8Array>;
}

export const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json' } as const;

export async function openRunOutput({
  deps,
  caller,
  input: { reportId, runId },
}: VerbArgs<ReportDeps & Pick<Deps, 'blobs'> & StoreOf<'reportRuns' | 'reports'>, { reportId: string; runId: string }>): Promise<RunOutput> {
  const { report, run } = await loadRun(deps, caller, reportId, runId);
  const blob = run.status === 'success' && run.outputKey ? await deps.blobs.open(run.outputKey) : undefined;
  if (!blob) throw new AppError('NOT_FOUND', { runId, message: run.status === 'success' ? 'the output is gone' : `the run is ${run.status}: no output` });
  const ext = outputExt(run);
  return {
    contentType: CONTENT_TYPES[ext],
    filename: `${report.name.replace(/[^A-Za-z0-9._-]+/g, '_')}-${run.id}.${ext}`,
    size: blob.size,
    stream: blob.stream,
  };
}

/** the format a run wrote, from its stored key (the report's format may have changed since) */
const outputExt = (run: ReportRunRow): 'csv' | 'json' => (run.outputKey?.endsWith('.json') ? 'json' : 'csv');
