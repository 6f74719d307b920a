// Create a scheduled report (docs/concepts.md#reports). Its next run is computed now, in its zone;
// a webhook destination gets a signing key, shown in this answer only.
import { randomBytes } from 'node:crypto';
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import type { ReportRow } from '../../ports/store.js';
import type { WebhookChecks } from '../module/checks.js';
import { sealedNewKey } from '../module/settings.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { CreateReportSchema, type Report } from './schemas.js';
import { requireReportManager } from './access.js';
import { checkReportSettings, filterOf } from './shape.js';
import { nextRunAfter } from './schedule.js';
import { toReport } from './view.js';

/** all but the Store, of which each verb names the repositories it uses (StoreOf) */
export type ReportDeps = Pick<Deps, 'bus' | 'clock' | 'sealer'>;
export const MAX_REPORTS_PER_PROJECT = 200;

export const newReportId = () => `rep-${randomBytes(8).toString('hex')}`;

export async function createReport({
  deps,
  caller,
  input: { body },
}: VerbArgs<ReportDeps & StoreOf<'logs' | 'reports'> & { checks: Pick<WebhookChecks, 'checkUrl'> }, Body>): Promise<Report> {
  const checks = deps.checks;
  requireReportManager(caller);
  const input = parseInput(CreateReportSchema, body);
  const projectId = requireReportManager(caller, input.projectId);
  const now = deps.clock.now();
  const filter = filterOf(input.filter);
  const destinationUrl = input.destination.type === 'webhook' ? input.destination.url : undefined;
  await checkReportSettings({ kind: input.kind, filter, window: input.window ?? null, schedule: input.schedule, destinationUrl }, checks, now);
  if ((await deps.store.reports.list(projectId, { skip: 0, limit: 1 })).total >= MAX_REPORTS_PER_PROJECT) {
    throw new AppError('LIMIT_EXCEEDED', { limit: MAX_REPORTS_PER_PROJECT, message: `a project has at most ${MAX_REPORTS_PER_PROJECT} reports` });
  }
  const time = now.toISOString();
  const key = destinationUrl !== undefined ? sealedNewKey(deps.sealer) : undefined;
  const row: ReportRow = {
    id: newReportId(),
    projectId,
    name: input.name,
    description: input.description ?? null,
    kind: input.kind,
    filter,
    window: input.window ?? null,
    format: input.format,
    schedule: input.schedule,
    destination: destinationUrl !== undefined ? { type: 'webhook', url: destinationUrl } : { type: 'store' },
    keySealed: key?.sealed ?? null,
    enabled: input.enabled,
    creationTime: time,
    modificationTime: time,
    lastRunTime: null,
    nextRunTime: input.enabled ? nextRunAfter(input.schedule, now) : null,
    leaseOwner: null,
  };
  await deps.store.reports.create(row);
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'reports', text: `report ${row.id} "${row.name}" (${row.kind}) created` } });
  return toReport(row, deps.sealer, true);
}
