// The rollout pass of the worker role (docs/firmware.md#rollouts): every `tickMs`, each running
// rollout is advanced (overdue devices, completion, threshold, waves, paced notifications) and
// each unannounced change is announced (domain/rollout/advance.ts). One pass at a time per
// process; several workers share the rollouts through the store's leases. A failed pass is
// logged and tried at the next tick.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { advanceRollouts, type AdvanceDeps, type AdvanceResult } from '../domain/rollout/index.js';

export interface RolloutWorkerConfig {
  tickMs: number;
  leaseSeconds: number;
}

export interface RolloutWorker {
  runOnce(): Promise<AdvanceResult | undefined>;
  stop(): Promise<void>;
}

export function startRolloutWorker(deps: AdvanceDeps & { logger: Logger }, config: RolloutWorkerConfig): RolloutWorker {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let running: Promise<AdvanceResult | undefined> | undefined;
  let stopped = false;
  const runOnce = () => {
    running ??= advanceRollouts({ deps, input: { owner, leaseMs: config.leaseSeconds * 1000 } })
      .then((r) => {
        if (r.notified || r.paused || r.completed || r.waves || r.failedOverdue) deps.logger.debug({ rollouts: r }, 'rollout pass');
        return r;
      })
      .catch((err) => {
        if (!stopped) deps.logger.warn({ err }, 'rollout pass failed');
        return undefined;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void runOnce(), config.tickMs);
  timer.unref();
  void runOnce();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
