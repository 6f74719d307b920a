// Hono environment shared by every sub-app, and what createApi needs.
import type { Logger } from 'pino';
import type { Caller } from '../domain/auth/caller.js';
import type { Deps } from '../domain/deps.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { OpMeta } from './op.js';
import type { AccessLogRecorder } from './access-log.js';
import type { HttpMetrics } from './metrics.js';

export interface ApiDeps extends Deps {
  logger: Logger;
  rateLimiter: RateLimiter;
  rateLimitEnabled: boolean;
  accessLog: AccessLogRecorder;
  metrics: HttpMetrics;
  bodyLimitBytes: number;
  /** extra readiness checks (bus, ...) beside the store ping */
  readiness?: () => Promise<void>;
}

export interface HttpEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    op: OpMeta | undefined;
    logger: Logger;
    deps: ApiDeps;
  };
}
