// Prometheus metrics for the API: request count and latency per route (API.md §11).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  latency: Histogram<'route' | 'method'>;
}

export function createHttpMetrics(registry = new Registry(), opts: { defaults?: boolean } = {}): HttpMetrics {
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: 'hearth_' });
  return {
    registry,
    requests: new Counter({
      name: 'hearth_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'hearth_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}
