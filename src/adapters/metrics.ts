// Metrics of the pipeline and of the adapters, on the registry /metrics serves (main.ts):
// - hearth_event_commit_duration_seconds: an event from entering the pipeline to the commit of
//   its row and its webhook deliveries (group commit, src/domain/event/group-commit.ts);
// - hearth_event_commits_total and hearth_event_commit_items_total: the pipeline's transactions
//   and the events in them (group commit: items per commit is their ratio), read when scraped;
// - hearth_pg_pool_*: the PostgreSQL pool (cluster mode);
// - hearth_redis_up: whether the Redis client is connected (cluster mode);
// - hearth_listener_connections_*: admission control of the MQTT listeners (src/listeners/gate.ts).
// The histogram is kept in plain numbers (one array, no label object per event) and handed to
// prom-client's registry in its exposition form when read, as src/http/metrics.ts does.
import { Counter, Gauge, type Registry } from 'prom-client';
import type pg from 'pg';
import type { PipelineMetrics } from '../ports/metrics.js';
import type { CheckpointFigures } from './sql/wal-checkpoint.js';

const EVENT_COMMIT = 'hearth_event_commit_duration_seconds';
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createPipelineMetrics(registry: Registry): PipelineMetrics {
  /** per bucket, not cumulative; the last one is above every bound (+Inf) */
  const counts = new Array<number>(BUCKETS.length + 1).fill(0);
  let sum = 0;
  let count = 0;
  const head = {
    name: EVENT_COMMIT,
    help: 'Time from an event entering the pipeline to the commit of its row and webhook deliveries',
    type: 'histogram' as const,
    aggregator: 'sum' as const,
  };
  const values = () => {
    let acc = 0;
    const out: { labels: Record<string, string | number>; value: number; metricName: string }[] = BUCKETS.map((le, i) => ({
      labels: { le },
      value: (acc += counts[i]),
      metricName: `${EVENT_COMMIT}_bucket`,
    }));
    out.push(
      { labels: { le: '+Inf' }, value: count, metricName: `${EVENT_COMMIT}_bucket` },
      { labels: {}, value: sum, metricName: `${EVENT_COMMIT}_sum` },
      { labels: {}, value: count, metricName: `${EVENT_COMMIT}_count` },
    );
    return out;
  };
  registry.registerMetric({
    ...head,
    get: async () => ({ ...head, values: values() }),
    reset: () => {
      counts.fill(0);
      sum = 0;
      count = 0;
    },
  } as never);
  return {
    eventCommitted(seconds) {
      // the first bound the value does not exceed (prom-client's rule)
      let i = 0;
      while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
      counts[i]++;
      sum += seconds;
      count++;
    },
  };
}

/** the PostgreSQL pool's connections, idle connections and queries waiting for one */
export function registerPoolMetrics(registry: Registry, pool: pg.Pool): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('hearth_pg_pool_connections', 'PostgreSQL connections the pool holds (idle and in use)', () => pool.totalCount);
  gauge('hearth_pg_pool_idle_connections', 'PostgreSQL connections of the pool not in use', () => pool.idleCount);
  gauge('hearth_pg_pool_waiting_queries', 'Queries waiting for a PostgreSQL connection of the pool', () => pool.waitingCount);
}

/** 1 while the Redis client is connected and ready, else 0 */
export function registerRedisMetrics(registry: Registry, ready: () => boolean): void {
  new Gauge({
    name: 'hearth_redis_up',
    help: 'Whether this process is connected to Redis (1) or not (0)',
    registers: [registry],
    collect() {
      this.set(ready() ? 1 : 0);
    },
  });
}

/** docs/operations.md#connect-storms: per MQTT listener, connections passed on, held for the rate, waiting now */
export function registerAdmissionMetrics(
  registry: Registry,
  read: () => { listener: string; passed: number; held: number; waiting: number; inFlight: number }[],
): void {
  const series = (name: string, help: string, field: 'passed' | 'held' | 'waiting' | 'inFlight', Metric: typeof Counter | typeof Gauge) =>
    new Metric({
      name,
      help,
      labelNames: ['listener'],
      registers: [registry],
      collect(this: Counter<'listener'> | Gauge<'listener'>) {
        this.reset();
        for (const a of read()) (this as Gauge<'listener'>).inc({ listener: a.listener }, a[field]);
      },
    });
  series('hearth_listener_connections_admitted_total', 'New connections a listener passed on to the broker (limits.connectRatePerSecond)', 'passed', Counter);
  series(
    'hearth_listener_connections_held_total',
    'New connections that waited because they arrived faster than limits.connectRatePerSecond, or past limits.connectsInFlight',
    'held',
    Counter,
  );
  series('hearth_listener_connections_waiting', 'New connections waiting now for limits.connectRatePerSecond or limits.connectsInFlight', 'waiting', Gauge);
  series(
    'hearth_listener_connections_in_flight',
    'Connections passed on to the broker that have had no CONNACK yet (limits.connectsInFlight)',
    'inFlight',
    Gauge,
  );
}

/** the event pipeline's group commits (domain/event/group-commit.ts), counted there and read here when scraped */
export function registerCommitMetrics(registry: Registry, counts: () => { commits: number; items: number }): void {
  readWhenScraped(
    registry,
    'hearth_event_commits_total',
    'Transactions of the event pipeline (each holds one or more events: group commit)',
    'counter',
    () => counts().commits,
  );
  readWhenScraped(
    registry,
    'hearth_event_commit_items_total',
    "Events (presence flips included) in the event pipeline's transactions",
    'counter',
    () => counts().items,
  );
}

/** one series without labels, whose value is read when /metrics is scraped */
function readWhenScraped(registry: Registry, name: string, help: string, type: 'counter' | 'gauge', value: () => number): void {
  const head = { name, help, type, aggregator: 'sum' as const };
  registry.registerMetric({
    ...head,
    get: async () => ({ ...head, values: [{ labels: {}, value: value() }] }),
    reset: () => {},
  } as never);
}

/** SQLite's checkpoints on their own thread (sql/wal-checkpoint.ts), read when scraped */
export function registerCheckpointMetrics(registry: Registry, figures: () => CheckpointFigures): void {
  const metric = (name: string, help: string, type: 'counter' | 'gauge', value: (f: CheckpointFigures) => number) =>
    readWhenScraped(registry, name, help, type, () => value(figures()));
  metric('hearth_sqlite_checkpoints_total', "Checkpoints of SQLite's WAL into the database file run by the checkpoint thread", 'counter', (f) => f.passes);
  metric(
    'hearth_sqlite_checkpoint_failures_total',
    'Checkpoints that failed or found another under way (the connection checkpoints itself if they go on failing)',
    'counter',
    (f) => f.failures,
  );
  metric('hearth_sqlite_checkpoint_holds_total', "Checkpoints that held the node's connection so the WAL could start over", 'counter', (f) => f.holds);
  metric('hearth_sqlite_checkpoint_held_seconds_total', "Time the node's connection was held for those checkpoints", 'counter', (f) => f.heldMs / 1000);
  metric('hearth_sqlite_wal_frames', 'Frames (pages) in the WAL at the last checkpoint', 'gauge', (f) => f.walFrames);
}
