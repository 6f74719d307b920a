// Prometheus metrics for the API: request count and latency per route (docs/operations.md#health-and-metrics). A request is
// recorded into plain numbers kept per route and method, and these become prom-client's metric
// objects only when /metrics is read: prom-client's own inc() and observe() build, hash and
// validate a label object on every call, a few percent of a GET (`npm run bench -- api`). The
// exposition is the one prom-client's Counter and Histogram give.
import { Registry, collectDefaultMetrics } from 'prom-client';

const REQUESTS = 'hearth_http_requests_total';
const LATENCY = 'hearth_http_request_duration_seconds';
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface HttpMetrics {
  registry: Registry;
  /** one answered request: counted by route, method and status; its latency by route and method */
  record(route: string, method: string, status: number, seconds: number): void;
}

interface Series {
  labels: { route: string; method: string };
  byStatus: Map<number, number>;
  /** observations per bucket, not cumulative; the last one is above every bound (+Inf) */
  buckets: number[];
  sum: number;
  count: number;
}

type Value = { value: number; labels: Record<string, string | number>; sharedLabels?: Record<string, string>; metricName?: string };

export function createHttpMetrics(registry = new Registry(), opts: { defaults?: boolean } = {}): HttpMetrics {
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: 'hearth_' });
  const byRoute = new Map<string, Map<string, Series>>();
  const all = () => [...byRoute.values()].flatMap((m) => [...m.values()]);

  const requests = metric(REQUESTS, 'HTTP requests by route, method and status', 'counter', () =>
    all().flatMap((s) => [...s.byStatus].map(([status, n]): Value => ({ value: n, labels: { ...s.labels, status: String(status) } }))),
  );
  const latency = metric(LATENCY, 'HTTP request latency by route', 'histogram', () =>
    all().flatMap((s) => {
      let acc = 0;
      const out: Value[] = BUCKETS.map((le, i) => ({ labels: { le }, sharedLabels: s.labels, value: (acc += s.buckets[i]), metricName: `${LATENCY}_bucket` }));
      out.push(
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${LATENCY}_bucket` },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${LATENCY}_sum` },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${LATENCY}_count` },
      );
      return out;
    }),
  );
  const reset = () => byRoute.clear();
  // the registry reads them like its own metrics (getForPromString, get, reset)
  registry.registerMetric({ ...requests, reset } as never);
  registry.registerMetric({ ...latency, reset } as never);

  return {
    registry,
    record(route, method, status, seconds) {
      let byMethod = byRoute.get(route);
      if (!byMethod) byRoute.set(route, (byMethod = new Map()));
      let s = byMethod.get(method);
      if (!s) byMethod.set(method, (s = { labels: { route, method }, byStatus: new Map(), buckets: new Array(BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
      s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
      // the first bound the value does not exceed (prom-client's rule)
      let i = 0;
      while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
      s.buckets[i]++;
      s.sum += seconds;
      s.count++;
    },
  };
}

/** a metric as prom-client's registry reads it */
function metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) {
  const head = { name, help, type, aggregator: 'sum' as const };
  return {
    ...head,
    // for the text exposition: labels shared by a series kept apart, as prom-client's own do
    getForPromString: async () => ({ ...head, values: values() }),
    // for JSON: one label object per value
    get: async () => ({ ...head, values: values().map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } })) }),
  };
}
