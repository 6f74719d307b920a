// Hono environment shared by every sub-app, and what createApi needs.
import type { Logger } from 'pino';
import type { Caller } from '../domain/caller.js';
import type { Deps } from '../domain/deps.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { OpMeta } from './op-meta.js';
import type { AccessLogRecorder } from './access-log.js';
import type { HttpMetrics } from './metrics.js';
import type { TrustedProxies } from './client-ip.js';

export interface ApiDeps extends Deps {
  logger: Logger;
  rateLimiter: RateLimiter;
  rateLimitEnabled: boolean;
  accessLog: AccessLogRecorder;
  metrics: HttpMetrics;
  bodyLimitBytes: number;
  /** extra readiness checks (bus, ...) beside the store ping */
  readiness?: () => Promise<void>;
  /**
   * a cluster node without the api role: only the operations endpoints (health, readiness,
   * metrics); the broker's WebSocket paths are not routes of this app
   */
  operationsOnly?: boolean;
  /** HEARTH_TRUSTED_PROXIES: whose X-Forwarded-For names the client (absent: the socket's peer) */
  trustedProxies?: TrustedProxies;
  /** HEARTH_CORS_ORIGINS (docs/api.md#conventions): absent or `['*']` answers every origin with `*` */
  corsOrigins?: readonly string[];
}

export interface HttpEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    op: OpMeta | undefined;
    deps: ApiDeps;
  };
}
