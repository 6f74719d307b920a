// The retention job of the worker role: every `intervalMs`, domain/retention deletes what is past
// its limit, in batches. One pass at a time; a pass that fails is logged and tried next time.
// Several workers may run it at once: deleting rows already deleted is harmless.
import type { Logger } from 'pino';
import { startPeriodic, type PeriodicPass } from './periodic.js';
import { enforceRetention, type RetentionDeps, type RetentionLimits, type RetentionResult } from '../domain/retention/index.js';

export interface RetentionConfig extends RetentionLimits {
  intervalMs: number;
}

export type RetentionJob = PeriodicPass<RetentionResult>;

export function startRetention(deps: RetentionDeps & { logger: Logger }, config: RetentionConfig, opts: { firstRunMs?: number } = {}): RetentionJob {
  return startPeriodic({
    name: 'retention pass',
    logger: deps.logger,
    everyMs: config.intervalMs,
    // the first pass soon after start, off the start-up path
    firstAfterMs: opts.firstRunMs ?? 10_000,
    pass: async () => {
      const r = await enforceRetention({ deps, input: config });
      const removed = r.accessLogs + r.generalLogs + r.events + r.dataRecords + r.reportRuns + r.abandonedUploads + r.tsdbPoints + r.statMinutes;
      if (removed > 0) deps.logger.info({ retention: r }, 'retention: old records removed');
      return r;
    },
  });
}
