// The schedule tick of the worker role (docs/concepts.md#reports): every `tickMs`, fire the reports that are
// due. Several workers may tick at once; store.reports.claimTick decides which one fires each
// report (domain/report/tick.ts), so a schedule fires once per tick.
import type { Logger } from 'pino';
import type { Deps } from '../../domain/deps.js';
import { fireDueReports } from '../../domain/report/index.js';

export interface Scheduler {
  /** one tick now; resolves with how many runs this worker queued */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

export function startScheduler(deps: Pick<Deps, 'store' | 'bus' | 'clock'> & { logger: Logger }, opts: { workerId: string; tickMs: number }): Scheduler {
  let running: Promise<number> | undefined;
  const tick = (): Promise<number> => {
    // a slow tick is not overlapped by the next
    running ??= fireDueReports({ deps, input: { owner: opts.workerId } })
      .catch((err) => {
        deps.logger.warn({ err }, 'report schedule tick failed');
        return 0;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void tick(), opts.tickMs);
  timer.unref();
  return {
    tick,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
