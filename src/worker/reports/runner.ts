// Runs queued reports: claims queued runs (or running ones whose lease ended: their worker died)
// up to `concurrency` at a time and executes them. Woken by a bus `work` message for the
// `reports` queue and by a poll timer, since the bus may drop messages (the table is the truth).
import type { Logger } from 'pino';
import type { Deps } from '../../domain/deps.js';
import { executeRun, REPORT_QUEUE, type ExecuteOptions } from '../../domain/report/index.js';

export interface RunnerOptions extends Omit<ExecuteOptions, 'workerId'> {
  workerId: string;
  pollMs: number;
  concurrency: number;
}

export interface ReportRunner {
  pump(): void;
  inflight(): number;
  /** stops claiming; waits up to graceMs for runs in flight (the rest are taken over later) */
  stop(graceMs: number): Promise<void>;
}

export function startRunner(deps: Pick<Deps, 'store' | 'bus' | 'clock' | 'blobs' | 'ids'> & { logger: Logger }, opts: RunnerOptions): ReportRunner {
  const inflight = new Set<Promise<void>>();
  let claiming = false;
  let again = false;
  let stopped = false;

  async function claimOnce(): Promise<void> {
    const free = opts.concurrency - inflight.size;
    if (free <= 0 || stopped) return;
    const now = deps.clock.now();
    const runs = await deps.store.reportRuns.claim(opts.workerId, now.toISOString(), new Date(now.getTime() + opts.leaseMs).toISOString(), free);
    for (const run of runs) {
      const p: Promise<void> = executeRun({ deps, input: { run, options: opts } })
        .then((r) => {
          if (r === 'lost') deps.logger.warn({ runId: run.id }, 'report run lease lost to another worker');
        })
        .catch((err) => deps.logger.error({ err, runId: run.id }, 'report run could not be recorded'))
        .finally(() => {
          inflight.delete(p);
          pump();
        });
      inflight.add(p);
    }
  }

  function pump(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    claimOnce()
      .catch((err) => deps.logger.warn({ err }, 'claiming report runs failed'))
      .finally(() => {
        claiming = false;
        if (again) {
          again = false;
          pump();
        }
      });
  }

  const poll = setInterval(pump, opts.pollMs);
  poll.unref();
  const unsubscribe = deps.bus.subscribe('work', (m) => {
    if (m.queue === REPORT_QUEUE) pump();
  });
  pump();

  return {
    pump,
    inflight: () => inflight.size,
    async stop(graceMs) {
      stopped = true;
      clearInterval(poll);
      unsubscribe();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled([...inflight]), grace]);
      clearTimeout(timer);
    },
  };
}
