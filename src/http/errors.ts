// The edge's translation of domain errors into responses: the three-branch handler (our error,
// framework error, unknown → logged, 500, no internals). The status of each reason comes from
// src/protocol/error-status.ts, which the broker's WebSocket upgrades share.
import { HTTPException } from 'hono/http-exception';
import type { Context } from 'hono';
import type { Reason } from '../domain/errors.js';
import { AppError, isAppError } from '../domain/errors.js';
import { fitStatus, statusOf } from '../protocol/error-status.js';
import type { HttpEnv } from './env.js';

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
