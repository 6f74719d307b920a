// The edge's translation of domain errors: one total record from reason to status, and the
// three-branch handler (our error, framework error, unknown → logged, 500, no internals).
import { HTTPException } from 'hono/http-exception';
import type { Context } from 'hono';
import type { Reason } from '../domain/errors.js';
import { AppError, isAppError } from '../domain/errors.js';
import type { HttpEnv } from './env.js';

export const statusOf: Record<Reason, 400 | 401 | 403 | 404 | 405 | 408 | 409 | 429 | 431 | 500 | 503> = {
  AUTHORIZATION_REQUIRED: 401,
  INVALID_TOKEN: 401,
  PERMISSION_DENIED: 403,
  INVALID_PARAMETERS: 403,
  MISSING_PARAMETERS: 403,
  INVALID_JSON: 403,
  BODY_TOO_LARGE: 403,
  READ_ONLY_FIELD: 403,
  UNKNOWN_DEVICE_CLASS: 403,
  DEVICE_OFFLINE: 403,
  DEVICE_NOT_CLAIMABLE: 403,
  DEVICE_ALREADY_IN_HOME: 403,
  BLOCKING_LOG_REQUEST: 403,
  LIMIT_EXCEEDED: 403,
  ALREADY_EXISTS: 403,
  // a home keeps at least one owner (docs/concepts.md)
  LAST_OWNER: 403,
  NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  REQUEST_NOT_FOUND: 404,
  BUNDLE_NOT_FOUND: 404,
  MODULE_NOT_FOUND: 404,
  HOME_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DEVICE_IN_USE: 409,
  KEY_IN_USE: 409,
  REQUEST_IN_USE: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  BAD_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
};

/**
 * An operation answers only the statuses docs/api.md#device-operations lists for it (docs/api.md#conventions/docs/concepts.md): a missing
 * credential on an operation without 401, or a hidden object on one without 404, answers 403.
 */
export function fitStatus(status: number, allowed: readonly number[] | undefined): number {
  if (!allowed || allowed.includes(status)) return status;
  if (status === 401 || status === 404) return 403;
  if (status === 503 && allowed.includes(500)) return 500;
  return status >= 500 ? 500 : 403;
}

export function errorResponse(c: Context<HttpEnv>, err: AppError, headers?: Record<string, string>): Response {
  const op = c.get('op');
  const status = fitStatus(statusOf[err.reason], op?.statuses);
  const body: { reason: string; data?: Record<string, unknown> } = { reason: err.reason };
  if (err.data) body.data = err.data;
  return c.json(body, status as 403, headers);
}

/** a database or bus that cannot be reached is 503, not 500 */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08006', '08001', 'SQLITE_BUSY'].includes(code ?? '');
}

export function onError(err: Error, c: Context<HttpEnv>): Response {
  if (isAppError(err)) return errorResponse(c, err, err.reason === 'RATE_LIMITED' ? { 'Retry-After': String(err.data?.retryAfter ?? 1) } : undefined);
  if (err instanceof HTTPException) {
    const status = err.status;
    const reason: Reason = status === 404 ? 'NOT_FOUND' : status === 405 ? 'METHOD_NOT_ALLOWED' : status === 413 ? 'BODY_TOO_LARGE' : 'INVALID_PARAMETERS';
    return errorResponse(c, new AppError(reason));
  }
  const logger = c.get('deps')?.logger;
  if (isUnavailable(err)) {
    logger?.warn({ err, requestId: c.get('requestId') }, 'dependency unavailable');
    return errorResponse(c, new AppError('SERVICE_UNAVAILABLE'));
  }
  logger?.error({ err, requestId: c.get('requestId') }, 'unexpected error');
  return errorResponse(c, new AppError('INTERNAL_ERROR', { requestId: c.get('requestId') }));
}
