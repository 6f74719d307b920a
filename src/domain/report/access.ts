// Who manages scheduled reports: a project key with scope `reports` (or `admin`), for its own
// project. Reports of another project are reported as not existing (docs/api.md#credentials).
import type { Caller } from '../caller.js';
import type { StoreOf } from '../deps.js';
import type { ReportRow } from '../../ports/store.js';
import { hasScope, requireCaller } from '../auth/access.js';
import { AppError } from '../errors.js';

/** the project the caller manages reports of; `projectId` defaults to the key's own */
export function requireReportManager(caller: Caller, projectId?: number): number {
  requireCaller(caller);
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'project key with scope reports' });
  const pid = projectId ?? caller.projectId;
  if (pid !== caller.projectId) throw new AppError('PROJECT_NOT_FOUND', { projectId: pid });
  if (!hasScope(caller, 'reports')) throw new AppError('PERMISSION_DENIED', { required: 'scope reports' });
  return pid;
}

export async function loadReport(deps: StoreOf<'reports'>, caller: Caller, reportId: string): Promise<ReportRow> {
  const projectId = requireReportManager(caller);
  const r = reportId.length <= 64 ? await deps.store.reports.get(reportId) : undefined;
  if (!r || r.projectId !== projectId) throw new AppError('NOT_FOUND', { reportId });
  return r;
}
