// createWorker: the worker role (docs/architecture.md#processes). It delivers webhooks from the durable
// queue: claims due deliveries, signs and sends them through a keep-alive pool per origin, and
// records every attempt. Built, not started: main.ts (or a test) calls start() and close().
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Store } from '../ports/store.js';
import type { Bus } from '../ports/bus.js';
import type { Clock } from '../ports/clock.js';
import type { StartThread } from '../ports/thread.js';
import type { EventPipeline } from '../ports/pipeline.js';
import type { Sealer } from '../domain/crypto/sealer.js';
import { WEBHOOK_QUEUE } from '../domain/webhook/fan-out.js';
import { checkClientOptions } from './webhook/client/http-client.js';
import { createLocalSender } from './webhook/sender/sender.js';
import { createThreadedSender } from './webhook/sender/threaded-sender.js';
import { createRunner, type MakeSender, type Runner } from './webhook/delivery/claim-loop.js';
import { createOutcomeWriter } from './webhook/delivery/outcomes.js';
import { FailureLog } from './webhook/delivery/failure-log.js';
import { createWorkerMetrics, type WorkerMetrics } from './metrics.js';

export interface WebhookWorkerConfig {
  allowPrivateTargets: boolean;
  timeoutMs: number;
  /** delays before each retry, in seconds (fractions allowed for tests) */
  retryScheduleSeconds: number[];
  pollMs: number;
  concurrency: number;
  /** docs/webhooks.md#retries: how long a claimed delivery stays this worker's unless renewed; absent: 12 */
  leaseSeconds?: number;
}

export interface WorkerDeps {
  store: Store;
  bus: Bus;
  clock: Clock;
  /** opens the target keys (the process's one unseal cache, Deps.sealer) */
  sealer: Sealer;
  /** the pipeline events are emitted through in this process: new deliveries are handed over from it */
  pipeline: EventPipeline;
  logger: Logger;
  webhooks: WebhookWorkerConfig;
  /** where the metrics go (the API's /metrics registry); a new one otherwise */
  registry?: Registry;
  /** embedded mode: this is the only worker on the queue, so leases left by a previous run are void */
  releaseLeasesOnStart?: boolean;
  /** finished deliveries older than this are removed (default 7) */
  retentionDays?: number;
  workerId?: string;
  /** the retry delay's jitter, in [0, 1); absent: Math.random (tests fix it) */
  jitter?: () => number;
  /** how long close() waits for deliveries in flight before handing them back (default 5 s) */
  closeGraceMs?: number;
  /**
   * starts worker threads (adapters/thread-port.ts, given by main.ts): with it the sending
   * (signing, HTTP exchanges) runs in a thread of its own (threaded-sender.ts); without, on this
   * event loop
   */
  threads?: StartThread;
}

export interface Worker {
  readonly id: string;
  readonly metrics: WorkerMetrics;
  start(): Promise<void>;
  /** claim now (also what a bus `work` message does) */
  wake(): void;
  inflight(): number;
  close(): Promise<void>;
}

const LEASE_MARGIN_MS = 30_000;
/** docs/webhooks.md#retries: the default lease of a claimed delivery */
const LEASE_SECONDS = 12;
const PRUNE_EVERY_MS = 3600_000;
const PRUNE_BATCH = 500;
const CLOSE_GRACE_MS = 5_000;
const FAILURE_LOG_WINDOW_MS = 10_000;

export function createWorker(deps: WorkerDeps): Worker {
  const id = deps.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const metrics = createWorkerMetrics(deps.store.deliveries, () => deps.clock.now(), deps.registry);
  // the worker reads no response header but Retry-After
  const clientOptions = { allowPrivateTargets: deps.webhooks.allowPrivateTargets, timeoutMs: deps.webhooks.timeoutMs, responseHeaders: false };
  checkClientOptions(clientOptions);
  // docs/webhooks.md#retries: a short lease, renewed while the row is held (delivery/claim-loop.ts), so a killed
  // worker's rows are taken again within it and a live worker's never
  const leaseMs = (deps.webhooks.leaseSeconds ?? LEASE_SECONDS) * 1000;
  // a job waiting this long for its lane goes back to the queue (as before the lease was a setting:
  // a quarter of the timeout and the margin; the lease is renewed meanwhile)
  const senderOptions = { concurrency: deps.webhooks.concurrency, staleMs: (deps.webhooks.timeoutMs + LEASE_MARGIN_MS) / 4 };
  const holdMs = senderOptions.staleMs + deps.webhooks.timeoutMs + LEASE_MARGIN_MS;
  // the exchanges on another core than the event loop that ingests events and writes the queue
  const makeSender: MakeSender = (deliver) =>
    deps.threads === undefined
      ? createLocalSender(clientOptions, senderOptions, deliver)
      : createThreadedSender(deps.threads, clientOptions, senderOptions, deliver, (err) =>
          deps.logger.error({ err }, 'webhook sender thread failed; its deliveries will be retried'),
        );
  const retentionMs = (deps.retentionDays ?? 7) * 86400_000;
  let runner: Runner | undefined;
  let unsubscribe: (() => void) | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;

  // short batches with a turn of the event loop between them: SQLite has one writer, and the
  // API and the queue need it meanwhile
  const prune = async () => {
    try {
      const before = new Date(deps.clock.now().getTime() - retentionMs).toISOString();
      let n = 0;
      for (let got = PRUNE_BATCH; got === PRUNE_BATCH && runner; n += got) {
        got = await deps.store.deliveries.prune(before, PRUNE_BATCH);
        await new Promise((r) => setImmediate(r));
      }
      if (n > 0) deps.logger.info({ removed: n }, 'finished webhook deliveries past retention removed');
    } catch (err) {
      deps.logger.warn({ err }, 'webhook delivery retention failed');
    }
  };

  return {
    id,
    metrics,
    async start() {
      if (runner) return;
      if (deps.releaseLeasesOnStart) {
        const n = await deps.store.deliveries.releaseAll(deps.clock.now().toISOString());
        if (n > 0) deps.logger.info({ released: n }, 'webhook deliveries in flight at the last stop are queued again');
      }
      runner = createRunner(
        {
          store: deps.store,
          bus: deps.bus,
          clock: deps.clock,
          pipeline: deps.pipeline,
          sealer: deps.sealer,
          logger: deps.logger,
          metrics,
          workerId: id,
          outcomes: createOutcomeWriter(deps.store.deliveries, id),
          failureLog: new FailureLog(FAILURE_LOG_WINDOW_MS),
          retryScheduleSeconds: deps.webhooks.retryScheduleSeconds,
          jitter: deps.jitter ?? Math.random,
        },
        { concurrency: deps.webhooks.concurrency, pollMs: deps.webhooks.pollMs, leaseMs, holdMs },
        makeSender,
      );
      const unsubscribeBus = deps.bus.subscribe('work', (msg) => {
        if (msg.queue === WEBHOOK_QUEUE) runner?.pump();
      });
      // new event deliveries come straight to this worker when it has room (handoff.ts)
      const detach = deps.pipeline.attachClaimer(runner);
      unsubscribe = () => {
        unsubscribeBus();
        detach();
      };
      pruneTimer = setInterval(() => void prune(), PRUNE_EVERY_MS);
      pruneTimer.unref();
      void prune();
      runner.pump();
    },
    wake: () => runner?.pump(),
    inflight: () => runner?.inflight() ?? 0,
    async close() {
      unsubscribe?.();
      clearInterval(pruneTimer);
      await runner?.stop(deps.closeGraceMs ?? CLOSE_GRACE_MS);
      runner = undefined;
    },
  };
}
