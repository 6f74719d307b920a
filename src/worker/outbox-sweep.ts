// The outbox sweep of the worker role (docs/concepts.md#command-outbox): every `sweepIntervalMs`,
// commands past their expiration become `expired` (with their event) and finished commands
// older than `retentionDays` are removed. One pass at a time; a failed pass is logged and tried
// at the next tick. Several workers may sweep at once: each change happens once.
import type { Logger } from 'pino';
import { sweepOutbox, type OutboxDeliveryDeps, type SweepResult } from '../domain/command/index.js';

export interface OutboxSweepConfig {
  sweepIntervalMs: number;
  retentionDays: number;
  batchSize: number;
}

export interface OutboxSweep {
  runOnce(): Promise<SweepResult | undefined>;
  stop(): Promise<void>;
}

export function startOutboxSweep(deps: OutboxDeliveryDeps & { logger: Logger }, config: OutboxSweepConfig): OutboxSweep {
  let running: Promise<SweepResult | undefined> | undefined;
  const runOnce = () => {
    running ??= sweepOutbox({ deps, input: { batchSize: config.batchSize, retentionDays: config.retentionDays } })
      .then((r) => {
        if (r.expired || r.removed) deps.logger.debug({ outbox: r }, 'outbox sweep');
        return r;
      })
      .catch((err) => {
        deps.logger.warn({ err }, 'outbox sweep failed');
        return undefined;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void runOnce(), config.sweepIntervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
