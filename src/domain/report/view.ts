// A report and a run as answered (docs/concepts.md#reports). A webhook destination's signing key is shown in
// full in the answer that made it, masked otherwise (like module keys, docs/webhooks.md).
import type { ReportRow, ReportRunRow } from '../../ports/store.js';
import type { Sealer } from '../crypto/sealer.js';
import { maskKey } from '../module/view.js';
import { DEFAULT_WINDOW, WINDOWED, windowMs, type Report, type Run } from './schemas.js';

export function toReport(r: ReportRow, sealer: Sealer, revealKey = false): Report {
  const out: Report = {
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    kind: r.kind,
    format: r.format,
    schedule: r.schedule,
    destination: r.destination.type === 'webhook' ? { type: 'webhook', url: r.destination.url } : { type: 'store' },
    enabled: r.enabled,
    creationTime: r.creationTime,
  };
  if (r.description) out.description = r.description;
  if (r.filter && Object.keys(r.filter).length) out.filter = r.filter;
  if (r.window) out.window = r.window;
  if (r.lastRunTime) out.lastRunTime = r.lastRunTime;
  if (r.nextRunTime) out.nextRunTime = r.nextRunTime;
  if (out.destination.type === 'webhook' && r.keySealed) {
    const key = sealer.unseal(r.keySealed);
    out.destination.key = revealKey ? key : maskKey(key);
  }
  return out;
}

/** [since, until) a run of this report covers; undefined for snapshot kinds */
export function windowOf(r: Pick<ReportRow, 'kind' | 'window'>, dueTime: string): { since: string; until: string } | undefined {
  if (!(WINDOWED as readonly string[]).includes(r.kind)) return undefined;
  const until = new Date(dueTime);
  return { since: new Date(until.getTime() - windowMs(r.window ?? DEFAULT_WINDOW)).toISOString(), until: until.toISOString() };
}

export function toRun(run: ReportRunRow, report?: Pick<ReportRow, 'kind' | 'window'>): Run {
  const out: Run = { id: run.id, reportId: run.reportId, trigger: run.trigger, status: run.status };
  if (run.startTime) out.startTime = run.startTime;
  if (run.endTime) out.endTime = run.endTime;
  if (run.rows !== null) out.rows = run.rows;
  if (run.error) out.error = run.error;
  if (run.outputBytes !== null) out.outputBytes = run.outputBytes;
  const w = report && windowOf(report, run.dueTime);
  if (w) Object.assign(out, w);
  return out;
}
