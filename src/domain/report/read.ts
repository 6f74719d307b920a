// List, get and delete scheduled reports (docs/concepts.md#reports). Deleting a report removes its
// runs and their outputs.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged } from '../../ports/store.js';
import { writeLog } from '../log/write.js';
import type { Report } from './schemas.js';
import { loadReport, requireReportManager } from './access.js';
import { toReport } from './view.js';
import type { ReportDeps } from './create.js';

export async function listReports({
  deps,
  caller,
  input: { projectId, page },
}: VerbArgs<ReportDeps & StoreOf<'reports'>, { projectId: number | undefined; page: Page }>): Promise<Paged<Report>> {
  const pid = requireReportManager(caller, projectId);
  const r = await deps.store.reports.list(pid, page);
  return { total: r.total, items: r.items.map((x) => toReport(x, deps.sealer)) };
}

export async function getReport({ deps, caller, input: { reportId } }: VerbArgs<ReportDeps & StoreOf<'reports'>, { reportId: string }>): Promise<Report> {
  return toReport(await loadReport(deps, caller, reportId), deps.sealer);
}

export async function deleteReport({
  deps,
  caller,
  input: { reportId },
}: VerbArgs<ReportDeps & Pick<Deps, 'blobs'> & StoreOf<'logs' | 'reports' | 'transaction'>, { reportId: string }>): Promise<void> {
  const r = await loadReport(deps, caller, reportId);
  await deps.store.transaction(async (tx) => {
    await tx.reportRuns.deleteForReport(r.id);
    await tx.reports.delete(r.id);
  });
  await deps.blobs.deleteTree(`reports/${r.id}`);
  await writeLog({ deps, input: { projectId: r.projectId, caller, level: 'info', source: 'reports', text: `report ${r.id} "${r.name}" deleted` } });
}
