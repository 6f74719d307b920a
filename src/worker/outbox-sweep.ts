// The outbox sweep of the worker role (docs/concepts.md#command-outbox): every `sweepIntervalMs`,
// commands past their expiration become `expired` (with their event) and finished commands
// older than `retentionDays` are removed. One pass at a time; a failed pass is logged and tried
// at the next tick. Several workers may sweep at once: each change happens once.
import type { Logger } from 'pino';
import { startPeriodic, type PeriodicPass } from './periodic.js';
import { sweepOutbox, type OutboxDeliveryDeps, type SweepResult } from '../domain/command/index.js';

export interface OutboxSweepConfig {
  sweepIntervalMs: number;
  retentionDays: number;
  batchSize: number;
}

export type OutboxSweep = PeriodicPass<SweepResult>;

export function startOutboxSweep(deps: OutboxDeliveryDeps & { logger: Logger }, config: OutboxSweepConfig): OutboxSweep {
  return startPeriodic({
    name: 'outbox sweep',
    logger: deps.logger,
    everyMs: config.sweepIntervalMs,
    pass: async () => {
      const r = await sweepOutbox({ deps, input: { batchSize: config.batchSize, retentionDays: config.retentionDays } });
      if (r.expired || r.removed) deps.logger.debug({ outbox: r }, 'outbox sweep');
      return r;
    },
  });
}
