// The one map from a domain reason to an MQTT 3.1.1 CONNACK return code (§3.2.2.3), total like
// src/protocol/error-status.ts statusOf: a reason added to the catalogue without a code fails to compile.
// docs/devices.md#mqtt: bad credentials 4; a revoked or deleted device 5.
import type { Reason } from '../../src/domain/errors.js';
import { isAppError } from '../../src/domain/errors.js';

/** 2 identifier rejected, 3 server unavailable, 4 bad user name or password, 5 not authorized */
export type ConnackCode = 2 | 3 | 4 | 5;

export const connackCodeOf: Record<Reason, ConnackCode> = {
  AUTHORIZATION_REQUIRED: 4,
  INVALID_TOKEN: 4,
  PERMISSION_DENIED: 5,
  INVALID_PARAMETERS: 4,
  MISSING_PARAMETERS: 4,
  INVALID_JSON: 4,
  BODY_TOO_LARGE: 4,
  READ_ONLY_FIELD: 5,
  UNKNOWN_DEVICE_CLASS: 5,
  DEVICE_OFFLINE: 3,
  DEVICE_NOT_CLAIMABLE: 5,
  DEVICE_ALREADY_IN_HOME: 5,
  BLOCKING_LOG_REQUEST: 3,
  // too many connections of one device: transient, the device should retry later
  LIMIT_EXCEEDED: 3,
  INVALID_STATE: 5,
  ALREADY_EXISTS: 2,
  LAST_OWNER: 5,
  NOT_FOUND: 5,
  DEVICE_NOT_FOUND: 5,
  KEY_NOT_FOUND: 5,
  REQUEST_NOT_FOUND: 5,
  BUNDLE_NOT_FOUND: 5,
  MODULE_NOT_FOUND: 5,
  HOME_NOT_FOUND: 5,
  USER_NOT_FOUND: 5,
  PROJECT_NOT_FOUND: 5,
  METHOD_NOT_ALLOWED: 5,
  DEVICE_IN_USE: 3,
  KEY_IN_USE: 3,
  REQUEST_IN_USE: 3,
  RATE_LIMITED: 3,
  INTERNAL_ERROR: 3,
  SERVICE_UNAVAILABLE: 3,
  // HTTP parser refusals: never raised on an MQTT connection
  BAD_REQUEST: 3,
  REQUEST_TIMEOUT: 3,
  HEADERS_TOO_LARGE: 3,
  // firmware downloads only (HTTP): never raised on an MQTT connection
  RANGE_NOT_SATISFIABLE: 3,
};

/** the error Aedes turns into a CONNACK with that return code */
export function connackError(err: unknown): Error & { returnCode: ConnackCode } {
  const code: ConnackCode = isAppError(err) ? connackCodeOf[err.reason] : 3;
  return Object.assign(new Error(isAppError(err) ? err.reason : 'SERVICE_UNAVAILABLE'), { returnCode: code });
}
