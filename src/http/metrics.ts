// Prometheus metrics for the API: request count and latency per route (docs/operations.md#health-and-metrics). A request is
// recorded into plain numbers kept per route and method, and these become prom-client's metric
// objects only when /metrics is read: prom-client's own inc() and observe() build, hash and
// validate a label object on every call, a few percent of a GET (`npm run bench -- api`). The
// exposition is the one prom-client's Counter and Histogram give.
// The process's own metrics are prom-client's defaults, but for the five whose count walks every
// handle, resource or open file of the process (walkingMetrics below): those are counted at most
// once every WALK_EVERY_MS, so a scrape costs the same at any fleet size.
import { readdir } from 'node:fs/promises';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

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

/**
 * how old the counts of open files, active handles and active resources may be. Counting them
 * walks every connection: at 5,000 connections prom-client's five collectors took 10 to 20 ms
 * of CPU per scrape (open files alone 2 to 7 ms, growing with the count: 17 ms at 15,000), so a
 * scrape every second was a few percent of a node's CPU during a connect storm (issue #25)
 */
export const WALK_EVERY_MS = 15_000;

export function createHttpMetrics(registry = new Registry(), opts: { defaults?: boolean; walkEveryMs?: number } = {}): HttpMetrics {
  if (opts.defaults) {
    collectDefaultMetrics({ register: registry, prefix: 'hearth_' });
    walkingMetrics(registry, 'hearth_', opts.walkEveryMs ?? WALK_EVERY_MS);
  }
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

interface Walk {
  at: number;
  /** open file descriptors; undefined where /proc/self/fd is not there (not Linux) */
  fds?: number;
  handles: Map<string, number>;
  handlesTotal: number;
  resources: Map<string, number>;
  resourcesTotal: number;
}

/** what prom-client's own processHandles and processResources read */
const nodeProcess = process as unknown as { _getActiveHandles?(): object[]; getActiveResourcesInfo?(): string[] };

/**
 * prom-client's process_open_fds, nodejs_active_handles(_total) and nodejs_active_resources(_total),
 * same names, help and labels, from one walk of the process at most every `everyMs`: a scrape
 * within that reads the last walk's counts. The open files are listed off the event loop (an
 * asynchronous readdir of /proc/self/fd); the handles and resources are one call each for both
 * of their series, where prom-client made two.
 */
function walkingMetrics(registry: Registry, prefix: string, everyMs: number): void {
  const names = ['process_open_fds', 'nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_resources', 'nodejs_active_resources_total'];
  const help = new Map<string, string>();
  for (const n of names) {
    const m = registry.getSingleMetric(prefix + n) as unknown as { help: string } | undefined;
    if (!m) continue; // not on this platform or this Node
    help.set(n, m.help);
    registry.removeSingleMetric(prefix + n);
  }
  let last: Walk | undefined;
  let walking: Promise<Walk> | undefined;
  const walk = async (): Promise<Walk> => {
    const countBy = <T>(list: T[], key: (x: T) => string | undefined) => {
      const m = new Map<string, number>();
      for (const x of list) {
        const k = key(x);
        if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
      }
      return m;
    };
    const handles = nodeProcess._getActiveHandles?.() ?? [];
    const resources = nodeProcess.getActiveResourcesInfo?.() ?? [];
    const w: Walk = {
      at: performance.now(),
      handles: countBy(handles, (h) => (h && typeof h.constructor === 'function' ? h.constructor.name : undefined)),
      handlesTotal: handles.length,
      resources: countBy(resources, (r) => r),
      resourcesTotal: resources.length,
    };
    if (help.has('process_open_fds'))
      // minus the one the listing itself held open (as prom-client counts)
      w.fds = await readdir('/proc/self/fd').then(
        (l) => l.length - 1,
        () => undefined,
      );
    return w;
  };
  const current = (): Promise<Walk> => {
    if (last && performance.now() - last.at < everyMs) return Promise.resolve(last);
    return (walking ??= walk()
      .then((w) => (last = w))
      .finally(() => (walking = undefined)));
  };
  const gauge = (name: string, labelled: boolean, read: (w: Walk, g: Gauge<string>) => void) => {
    if (!help.has(name)) return;
    new Gauge({
      name: prefix + name,
      help: help.get(name)!,
      labelNames: labelled ? ['type'] : [],
      registers: [registry],
      async collect() {
        read(await current(), this);
      },
    });
  };
  const byType = (counts: Map<string, number>, g: Gauge<string>) => {
    g.reset();
    for (const [type, n] of counts) g.set({ type }, n);
  };
  gauge('process_open_fds', false, (w, g) => w.fds !== undefined && g.set(w.fds));
  gauge('nodejs_active_handles', true, (w, g) => byType(w.handles, g));
  gauge('nodejs_active_handles_total', false, (w, g) => g.set(w.handlesTotal));
  gauge('nodejs_active_resources', true, (w, g) => byType(w.resources, g));
  gauge('nodejs_active_resources_total', false, (w, g) => g.set(w.resourcesTotal));
}
