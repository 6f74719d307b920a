// docs/api.md#fleet-figures: a project's fleet figures, read from counters kept as things happen
// (per-minute rows added at ingest and as delivery outcomes are written, index-only device
// counts, the live delivery rows), never from the events or deliveries history: the answer costs
// the same with 10 devices or 100,000, and every node's counts are in the rows it reads.
import type { Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { minuteOf, type StatCount } from '../../ports/store.js';
import { ownProject } from './access.js';
import type { FleetStats } from './schemas.js';

/** the current minute and the 60 whole minutes before it */
export const STATS_MINUTES = 61;

export async function getFleetStats({
  deps,
  caller,
  input: { projectId },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'projects' | 'devices' | 'deliveries' | 'stats'>, ProjectRef>): Promise<FleetStats> {
  await ownProject(deps, caller, projectId);
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'a project key' });
  const now = deps.clock.now();
  const current = Math.floor(now.getTime() / 60_000) * 60_000;
  const minutes = Array.from({ length: STATS_MINUTES }, (_, i) => new Date(current - (STATS_MINUTES - 1 - i) * 60_000).toISOString());
  const [devices, counts, live] = await Promise.all([
    deps.store.devices.counts(projectId),
    deps.store.stats.minutes(projectId, minuteOf(minutes[0]), minuteOf(minutes[STATS_MINUTES - 1])),
    deps.store.deliveries.liveStats(projectId),
  ]);
  const events = new Map<string, number>();
  let succeeded = 0;
  let failed = 0;
  for (const c of counts as StatCount[]) {
    if (c.counter === 'events') events.set(c.minute, c.n);
    else if (c.counter === 'deliveriesSucceeded') succeeded += c.n;
    else if (c.counter === 'deliveriesFailed') failed += c.n;
  }
  const oldest = live.oldestPendingTime ? Date.parse(live.oldestPendingTime) : NaN;
  return {
    devices,
    events: { perMinute: minutes.map((m) => ({ minute: m, count: events.get(minuteOf(m)) ?? 0 })) },
    deliveries: {
      succeeded,
      failed,
      retrying: live.retrying,
      oldestPendingSeconds: Number.isNaN(oldest) ? null : Math.max(0, Math.floor((now.getTime() - oldest) / 1000)),
    },
  };
}
