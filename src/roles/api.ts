// The HTTP app every node serves (docs/architecture.md#processes), built by main.ts from the deps it
// built once: api nodes serve the API, the others only health, readiness and metrics (a worker's
// queue depth is read there), and brokers their WebSocket paths beside it.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Hono } from 'hono';
import type { Config } from '../config/schema.js';
import type { Deps } from '../domain/deps.js';
import type { Realtime } from '../adapters/realtime.js';
import { createApi } from '../http/app.js';
import type { AccessLogRecorder } from '../http/access-log.js';
import { createHttpMetrics } from '../http/metrics.js';
import type { TrustedProxies } from '../http/client-ip.js';
import type { HttpEnv } from '../http/env.js';

export interface ApiRoleOptions {
  config: Pick<Config, 'roles' | 'rateLimit' | 'limits' | 'corsOrigins'>;
  realtime: Pick<Realtime, 'rateLimiter' | 'check'>;
  logger: Logger;
  accessLog: AccessLogRecorder;
  registry: Registry;
  trustedProxies: TrustedProxies | undefined;
}

export function createApiRole(deps: Deps, { config, realtime, logger, accessLog, registry, trustedProxies }: ApiRoleOptions): Hono<HttpEnv> {
  return createApi({
    ...deps,
    logger,
    rateLimiter: realtime.rateLimiter,
    readiness: () => realtime.check(),
    rateLimitEnabled: config.rateLimit.enabled,
    accessLog,
    metrics: createHttpMetrics(registry, { defaults: true }),
    bodyLimitBytes: config.limits.httpBodyBytes,
    operationsOnly: !config.roles.includes('api'),
    trustedProxies,
    corsOrigins: config.corsOrigins,
  });
}
