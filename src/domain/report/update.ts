// Update a scheduled report (docs/concepts.md#reports PATCH → 200, the updated record). A changed schedule or
// `enabled` moves nextRunTime; a new webhook URL, or `rotateKey`, brings a new signing key (shown
// in this answer only). Read-only fields sent back unchanged are ignored.
import type { Body, StoreOf, VerbArgs } from '../deps.js';
import type { ReportPatch, ReportRow } from '../../ports/store.js';
import type { WebhookChecks } from '../module/checks.js';
import { sealedNewKey } from '../module/settings.js';
import { AppError } from '../errors.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { PatchReportSchema, REPORT_READ_ONLY, type Report } from './schemas.js';
import { loadReport } from './access.js';
import { checkReportSettings, filterOf } from './shape.js';
import { nextRunAfter } from './schedule.js';
import { toReport } from './view.js';
import type { ReportDeps } from './create.js';

export async function updateReport({
  deps,
  caller,
  input: { reportId, body },
}: VerbArgs<ReportDeps & StoreOf<'logs' | 'reports'> & { checks: Pick<WebhookChecks, 'checkUrl'> }, { reportId: string } & Body>): Promise<Report> {
  const checks = deps.checks;
  const cur = await loadReport(deps, caller, reportId);
  const input = parseInput(PatchReportSchema, body);
  const shown = toReport(cur, deps.sealer);
  checkReadOnly(
    input,
    { id: cur.id, projectId: cur.projectId, creationTime: cur.creationTime, lastRunTime: shown.lastRunTime, nextRunTime: shown.nextRunTime },
    REPORT_READ_ONLY,
  );
  const now = deps.clock.now();
  const next: ReportRow = {
    ...cur,
    name: input.name ?? cur.name,
    description: input.description !== undefined ? input.description : cur.description,
    kind: input.kind ?? cur.kind,
    filter: input.filter !== undefined ? filterOf(input.filter) : cur.filter,
    window: input.window !== undefined ? input.window : cur.window,
    format: input.format ?? cur.format,
    schedule: input.schedule ? { cron: input.schedule.cron, timezone: input.schedule.timezone ?? cur.schedule.timezone } : cur.schedule,
    enabled: input.enabled ?? cur.enabled,
  };
  const dest = input.destination;
  const newUrl = dest?.type === 'webhook' && (cur.destination.type !== 'webhook' || cur.destination.url !== dest.url) ? dest.url : undefined;
  await checkReportSettings({ kind: next.kind, filter: next.filter, window: next.window, schedule: next.schedule, destinationUrl: newUrl }, checks, now);
  const patch: ReportPatch = {
    modificationTime: now.toISOString(),
    name: next.name,
    description: next.description,
    kind: next.kind,
    filter: next.filter,
    window: next.window,
    format: next.format,
    schedule: next.schedule,
    enabled: next.enabled,
  };
  let reveal = false;
  if (dest) {
    patch.destination = dest.type === 'webhook' ? { type: 'webhook', url: dest.url } : { type: 'store' };
    if (dest.type === 'store') patch.keySealed = null;
  }
  const isWebhook = (patch.destination ?? cur.destination).type === 'webhook';
  if (input.rotateKey && !isWebhook)
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'rotateKey', message: 'only a webhook destination has a key' }] });
  if (newUrl !== undefined || input.rotateKey) {
    patch.keySealed = sealedNewKey(deps.sealer).sealed;
    reveal = true;
  }
  if (input.schedule !== undefined || input.enabled !== undefined) patch.nextRunTime = next.enabled ? nextRunAfter(next.schedule, now) : null;
  await deps.store.reports.update(cur.id, patch);
  await writeLog({ deps, input: { projectId: cur.projectId, caller, level: 'info', source: 'reports', text: `report ${cur.id} updated` } });
  const saved = await deps.store.reports.get(cur.id);
  if (!saved) throw new AppError('NOT_FOUND', { reportId });
  return toReport(saved, deps.sealer, reveal);
}
