// The status of each error reason, shared by the two edges that answer over HTTP: the REST API
// (src/http/errors.ts) and the broker's WebSocket upgrades (broker/sockets/upgrade-http.ts).
// The record is total over Reason, so a reason added to errors.ts without a status fails to
// compile (docs/api.md#errors).
import type { Reason } from '../domain/errors.js';

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 416 | 429 | 431 | 500 | 503;

export const statusOf: Record<Reason, ErrorStatus> = {
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
  INVALID_STATE: 403,
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
  RANGE_NOT_SATISFIABLE: 416,
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
