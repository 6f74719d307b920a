// The retention job of the worker role: every `intervalMs`, domain/retention deletes what is past
// its limit, in batches. One pass at a time; a pass that fails is logged and tried next time.
// Several workers may run it at once: deleting rows already deleted is harmless.
import type { Logger } from 'pino';
import { enforceRetention, type RetentionDeps, type RetentionLimits, type RetentionResult } from '../domain/retention/index.js';

export interface RetentionConfig extends RetentionLimits {
  intervalMs: number;
}

export interface RetentionJob {
  /** one pass now (or the one already running) */
  runOnce(): Promise<RetentionResult | undefined>;
  stop(): Promise<void>;
}

export function startRetention(deps: RetentionDeps & { logger: Logger }, config: RetentionConfig, opts: { firstRunMs?: number } = {}): RetentionJob {
  let running: Promise<RetentionResult | undefined> | undefined;
  const runOnce = () => {
    running ??= enforceRetention({ deps, input: config })
      .then((r) => {
        const removed = r.accessLogs + r.generalLogs + r.events + r.dataRecords + r.reportRuns + r.abandonedUploads + r.tsdbPoints + r.statMinutes;
        if (removed > 0) deps.logger.info({ retention: r }, 'retention: old records removed');
        return r;
      })
      .catch((err) => {
        deps.logger.warn({ err }, 'retention pass failed');
        return undefined;
      })
      .finally(() => (running = undefined));
    return running;
  };
  // the first pass soon after start, off the start-up path
  const first = setTimeout(() => void runOnce(), opts.firstRunMs ?? 10_000);
  first.unref();
  const timer = setInterval(() => void runOnce(), config.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
