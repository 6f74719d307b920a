// The reports part of the worker role (docs/concepts.md#reports): the schedule tick and the run executor.
// main.ts starts it in processes with the worker role; tests start it directly (two instances on
// one database behave like two workers).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Deps } from '../../domain/deps.js';
import { startScheduler, type Scheduler } from './scheduler.js';
import { startRunner, type ReportRunner } from './runner.js';

export interface ReportWorkerConfig {
  tickMs: number;
  pollMs: number;
  leaseSeconds: number;
  concurrency: number;
  progressRows: number;
  maxRows: number;
  webhookMaxBytes: number;
}

export interface ReportWorker {
  readonly id: string;
  scheduler: Scheduler;
  runner: ReportRunner;
  stop(): Promise<void>;
}

export function startReportWorker(
  deps: Pick<Deps, 'store' | 'bus' | 'clock' | 'blobs' | 'ids'> & { logger: Logger },
  config: ReportWorkerConfig,
  workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
): ReportWorker {
  const scheduler = startScheduler(deps, { workerId, tickMs: config.tickMs });
  const runner = startRunner(deps, {
    workerId,
    pollMs: config.pollMs,
    concurrency: config.concurrency,
    leaseMs: config.leaseSeconds * 1000,
    progressRows: config.progressRows,
    maxRows: config.maxRows,
    webhookMaxBytes: config.webhookMaxBytes,
  });
  return {
    id: workerId,
    scheduler,
    runner,
    async stop() {
      await scheduler.stop();
      await runner.stop(5000);
    },
  };
}
