// The schedule tick of the worker role (docs/concepts.md#reports): every `tickMs`, fire the reports that are
// due. Several workers may tick at once; store.reports.claimTick decides which one fires each
// report (domain/report/tick.ts), so a schedule fires once per tick.
import type { Logger } from 'pino';
import { startPeriodic } from '../periodic.js';
import type { Deps } from '../../domain/deps.js';
import { fireDueReports } from '../../domain/report/index.js';

export interface Scheduler {
  /** one tick now; resolves with how many runs this worker queued */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

export function startScheduler(deps: Pick<Deps, 'store' | 'bus' | 'clock'> & { logger: Logger }, opts: { workerId: string; tickMs: number }): Scheduler {
  const pass = startPeriodic({
    name: 'report schedule tick',
    logger: deps.logger,
    everyMs: opts.tickMs,
    pass: () => fireDueReports({ deps, input: { owner: opts.workerId } }),
  });
  return { tick: async () => (await pass.runOnce()) ?? 0, stop: pass.stop };
}
