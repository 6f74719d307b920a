// The worker role (docs/architecture.md#processes), started by main.ts from the deps it built once:
// webhook delivery, the report tick and runs, the retention job, the outbox sweep and rollouts.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config/schema.js';
import type { Deps } from '../domain/deps.js';
import { createWorker } from '../worker/index.js';
import { startReportWorker } from '../worker/reports/index.js';
import { startRetention } from '../worker/retention.js';
import { startOutboxSweep } from '../worker/outbox-sweep.js';
import { startRolloutWorker } from '../worker/rollouts.js';
import { startThread } from '../adapters/thread-port.js';

export interface WorkerRoleOptions {
  config: Pick<Config, 'webhooks' | 'reports' | 'retention' | 'databaseUrl' | 'tsdb' | 'outbox' | 'rollouts'>;
  logger: Logger;
  /** the worker's metrics share the API's /metrics registry */
  registry: Registry;
}

/** started; the returned close stops retention, reports, then the delivery worker */
export async function startWorkerRole(deps: Deps, { config, logger, registry }: WorkerRoleOptions): Promise<() => Promise<void>> {
  // Webhooks (docs/webhooks.md). With SQLite (embedded mode) this is the only worker on the
  // queue, so leases left by a killed process are given back at once. New deliveries are handed
  // to it through the same pipeline emitEvent writes to (deps.pipeline).
  const worker = createWorker({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    sealer: deps.sealer,
    pipeline: deps.pipeline,
    logger,
    webhooks: config.webhooks,
    registry,
    releaseLeasesOnStart: !config.databaseUrl,
    threads: startThread,
  });
  await worker.start();
  // docs/concepts.md#reports, docs/concepts.md#data-sources: the report tick and runs, and retention
  const reports = startReportWorker({ store: deps.store, bus: deps.bus, clock: deps.clock, blobs: deps.blobs, ids: deps.ids, logger }, config.reports);
  const retention = startRetention({ ...deps, logger }, { ...config.retention, tsdbDays: config.tsdb.retentionDays });
  // docs/concepts.md#command-outbox: expiry on time, and retention of finished commands
  const outbox = startOutboxSweep({ ...deps, logger }, { ...config.outbox, batchSize: config.retention.batchSize });
  // docs/firmware.md#rollouts: waves, pacing, the failure threshold and `_rolloutUpdated_`
  const rollouts = startRolloutWorker({ ...deps, logger }, config.rollouts);
  return async () => {
    await rollouts.stop();
    await outbox.stop();
    await retention.stop();
    await reports.stop();
    await worker.close();
  };
}
