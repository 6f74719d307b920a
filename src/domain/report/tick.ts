// The schedule tick (docs/concepts.md#reports: a schedule fires once per tick even with several workers).
// Every worker looks for due reports; for each, ONE conditional update moves nextRunTime from the
// due time to the next one (the lease, store.reports.claimTick), and only the worker whose update
// took effect queues the run, in the same transaction. A tick missed while no worker ran fires
// once, not once per missed occurrence; the next time is counted from now.
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import { writeLog } from '../log/write.js';
import { nextRunAfter } from './schedule.js';
import { newRunId, REPORT_QUEUE } from './run.js';

export async function fireDueReports({
  deps,
  input: { owner, limit },
}: SystemArgs<Pick<Deps, 'bus' | 'clock'> & StoreOf<'logs' | 'reports' | 'transaction'>, { owner: string; limit?: number }>): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.store.reports.due(now.toISOString(), limit ?? 100);
  let fired = 0;
  for (const r of due) {
    const dueTime = r.nextRunTime;
    if (!dueTime) continue;
    let next: string | null;
    try {
      next = nextRunAfter(r.schedule, now);
    } catch (e) {
      // a schedule that cannot be read any more stops, rather than fire on every tick
      next = null;
      await writeLog({
        deps,
        input: { projectId: r.projectId, level: 'error', source: 'reports', text: `report ${r.id}: schedule stopped: ${(e as Error).message}` },
      });
    }
    const queued = await deps.store.transaction(async (tx) => {
      if (!(await tx.reports.claimTick(r.id, dueTime, next, owner))) return false;
      await tx.reportRuns.create({ id: newRunId(), reportId: r.id, projectId: r.projectId, trigger: 'schedule', dueTime, creationTime: now.toISOString() });
      return true;
    });
    if (queued) fired++;
  }
  if (fired) await deps.bus.publish('work', { queue: REPORT_QUEUE });
  return fired;
}
