// The rollout pass of the worker role (docs/firmware.md#rollouts): every `tickMs`, each running
// rollout is advanced (overdue devices, completion, threshold, waves, paced notifications) and
// each unannounced change is announced (domain/rollout/advance.ts). One pass at a time per
// process; several workers share the rollouts through the store's leases. A failed pass is
// logged and tried at the next tick.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { startPeriodic, type PeriodicPass } from './periodic.js';
import { advanceRollouts, type AdvanceDeps, type AdvanceResult } from '../domain/rollout/index.js';

export interface RolloutWorkerConfig {
  tickMs: number;
  leaseSeconds: number;
}

export type RolloutWorker = PeriodicPass<AdvanceResult>;

export function startRolloutWorker(deps: AdvanceDeps & { logger: Logger }, config: RolloutWorkerConfig): RolloutWorker {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return startPeriodic({
    name: 'rollout pass',
    logger: deps.logger,
    everyMs: config.tickMs,
    firstAfterMs: 0,
    pass: async () => {
      const r = await advanceRollouts({ deps, input: { owner, leaseMs: config.leaseSeconds * 1000 } });
      if (r.notified || r.paused || r.completed || r.waves || r.failedOverdue) deps.logger.debug({ rollouts: r }, 'rollout pass');
      return r;
    },
  });
}
