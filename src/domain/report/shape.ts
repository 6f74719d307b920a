// Checks of a report's settings beyond their shape: filters and windows that mean something for
// its kind, a schedule croner can run, a webhook target the policy allows (docs/webhooks.md).
import type { ReportFilter, ReportKind } from '../../ports/store.js';
import type { WebhookChecks } from '../module/checks.js';
import { AppError } from '../errors.js';
import { WINDOWED } from './schemas.js';
import { checkSchedule, type Schedule } from './schedule.js';

const APPLIES: Record<ReportKind, (keyof ReportFilter)[]> = {
  devices: ['homeId', 'deviceClass'],
  connectivity: ['homeId', 'deviceClass'],
  events: ['homeId', 'deviceClass', 'eventTypes'],
  deliveries: ['eventTypes'],
};

const invalid = (path: string, message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path, message }] });

export async function checkReportSettings(
  s: { kind: ReportKind; filter: ReportFilter | null; window: string | null; schedule: Schedule; destinationUrl?: string },
  checks: Pick<WebhookChecks, 'checkUrl'>,
  now: Date,
): Promise<void> {
  for (const k of Object.keys(s.filter ?? {}) as (keyof ReportFilter)[]) {
    if (s.filter?.[k] !== undefined && !APPLIES[s.kind].includes(k)) throw invalid(`filter.${k}`, `filter.${k} does not apply to ${s.kind} reports`);
  }
  if (s.window && !(WINDOWED as readonly string[]).includes(s.kind)) throw invalid('window', `a ${s.kind} report is a snapshot: window does not apply`);
  checkSchedule(s.schedule, now);
  if (s.destinationUrl !== undefined) await checks.checkUrl(s.destinationUrl, 'destination.url');
}

/** an empty filter is no filter */
export function filterOf(f: ReportFilter | null | undefined): ReportFilter | null {
  if (!f) return null;
  const out: ReportFilter = {};
  if (f.homeId !== undefined) out.homeId = f.homeId;
  if (f.deviceClass !== undefined) out.deviceClass = f.deviceClass;
  if (f.eventTypes !== undefined) out.eventTypes = [...new Set(f.eventTypes)];
  return Object.keys(out).length ? out : null;
}
