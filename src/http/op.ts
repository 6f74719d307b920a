// Per-route metadata, attached as the first middleware of each route: it names the operation,
// fixes which statuses it may answer, resolves the caller, applies the rate limit, and is what
// /openapi.json is generated from (one definition: validation, types and docs).
import type { MiddlewareHandler } from 'hono';
import type { GenericSchema } from 'valibot';
import { resolveCaller, tokenFromHeader } from '../domain/auth/resolve.js';
import { callerKey } from '../domain/auth/caller.js';
import { AppError } from '../domain/errors.js';
import type { HttpEnv } from './env.js';
import { SPEC_STATUSES, type SpecOperation } from './spec-statuses.js';
import { clientIp } from './client-ip.js';

export interface OpMeta {
  operationId: string;
  summary: string;
  tag: string;
  /** statuses the operation may answer besides success; undefined = any of API.md §12 */
  statuses?: readonly number[];
  success: number;
  body?: GenericSchema;
  query?: GenericSchema;
  response?: GenericSchema;
  /** who may call, for the docs */
  auth?: string;
  /** false for endpoints that take no credential at all (health, token in the path) */
  authenticated?: boolean;
  /** an optional credential in `?authToken=` (WebSocket endpoints) */
  queryToken?: boolean;
}

export type OpMiddleware = MiddlewareHandler<HttpEnv> & { meta: OpMeta };

export function op(meta: Omit<OpMeta, 'statuses'> & { spec?: SpecOperation; statuses?: readonly number[] }): OpMiddleware {
  const full: OpMeta = { ...meta, statuses: meta.spec ? SPEC_STATUSES[meta.spec] : meta.statuses };
  const rateLimited = !full.statuses || full.statuses.includes(429);
  const mw: MiddlewareHandler<HttpEnv> = async (c, next) => {
    c.set('op', full);
    const deps = c.get('deps');
    const ip = clientIp(c);
    const limit = async (key: string) => {
      const d = await deps.rateLimiter.consume(key);
      if (!d.allowed) throw new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(d.retryAfterMs / 1000)) });
    };
    // operations whose SPEC list has no 429 are exempt (API.md §12)
    const limited = rateLimited && deps.rateLimitEnabled;
    if (full.authenticated !== false) {
      let token = tokenFromHeader(c.req.header('authorization'));
      if (!token && full.queryToken) token = c.req.query('authToken') || undefined;
      try {
        c.set('caller', await resolveCaller(deps, token, ip));
      } catch (err) {
        // an unknown token spends the client IP's bucket: guessing is limited like anonymity
        if (limited) await limit(`ip:${ip}`);
        throw err;
      }
    }
    if (limited) await limit(callerKey(c.get('caller')) ?? `ip:${ip}`);
    await next();
  };
  return Object.assign(mw, { meta: full });
}
