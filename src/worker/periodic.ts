// A pass the worker role repeats on a timer (the outbox sweep, the rollout pass, the report
// schedule tick, retention): one pass at a time, so a slow pass is not overlapped by the next and
// a call while one runs gets that one; a failed pass is logged and tried at the next tick; the
// timers keep no process alive; stop() waits for the pass under way.
import type { Logger } from 'pino';

export interface PeriodicPass<R> {
  /** one pass now (or the one already running); undefined when it failed */
  runOnce(): Promise<R | undefined>;
  stop(): Promise<void>;
}

export function startPeriodic<R>(opts: {
  /** in the log line of a failed pass: `${name} failed` */
  name: string;
  logger: Logger;
  everyMs: number;
  /** the first pass, this long after start (0: at once); by default the first tick */
  firstAfterMs?: number;
  pass: () => Promise<R>;
}): PeriodicPass<R> {
  let running: Promise<R | undefined> | undefined;
  let stopped = false;
  const runOnce = (): Promise<R | undefined> => {
    running ??= opts
      .pass()
      .catch((err) => {
        // a pass cut short by stop() is no failure
        if (!stopped) opts.logger.warn({ err }, `${opts.name} failed`);
        return undefined;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void runOnce(), opts.everyMs);
  timer.unref();
  let first: NodeJS.Timeout | undefined;
  if (opts.firstAfterMs === 0) void runOnce();
  else if (opts.firstAfterMs !== undefined) {
    first = setTimeout(() => void runOnce(), opts.firstAfterMs);
    first.unref();
  }
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
