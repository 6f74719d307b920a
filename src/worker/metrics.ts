// Worker metrics (docs/operations.md#health-and-metrics /metrics): deliveries by outcome, attempt latency, and the queue's
// depth and the age of its oldest unfinished delivery, read from the store at scrape time.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Deliveries } from '../ports/queue.js';

export interface WorkerMetrics {
  registry: Registry;
  deliveries: Counter<'kind' | 'outcome'>;
  attemptSeconds: Histogram<'kind'>;
  disabled: Counter<'kind'>;
}

export function createWorkerMetrics(queue: Deliveries, now: () => Date, registry = new Registry()): WorkerMetrics {
  type Stats = Awaited<ReturnType<Deliveries['stats']>>;
  let last: Promise<Stats> | undefined;
  let previous: Stats = { pending: 0, delivering: 0, oldestPendingTime: null };
  // both gauges are filled from one query per scrape; a store that fails keeps the last values
  const stats = () =>
    (last ??= queue
      .stats()
      .then(
        (s) => (previous = s),
        () => previous,
      )
      .finally(() => setTimeout(() => (last = undefined), 100).unref()));
  new Gauge({
    name: 'hearth_webhook_queue_depth',
    help: 'Webhook deliveries not finished yet, by status (pending, delivering)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const s = await stats();
      this.set({ status: 'pending' }, s.pending);
      this.set({ status: 'delivering' }, s.delivering);
    },
  });
  new Gauge({
    name: 'hearth_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest webhook delivery not finished yet (0 when none)',
    registers: [registry],
    async collect() {
      const s = await stats();
      this.set(s.oldestPendingTime ? Math.max(0, (now().getTime() - Date.parse(s.oldestPendingTime)) / 1000) : 0);
    },
  });
  return {
    registry,
    deliveries: new Counter({
      name: 'hearth_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: success, retry, failed, dropped',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'hearth_webhook_attempt_duration_seconds',
      help: 'Latency of webhook HTTP attempts',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    disabled: new Counter({
      name: 'hearth_webhook_disabled_total',
      help: 'Webhooks disabled because the receiver answered 410 Gone',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}
