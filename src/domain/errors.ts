// The one catalogue of error reasons (docs/api.md#errors). Each reason has a status in a total
// record (error-status.ts, shared by the REST API and the broker's upgrades), so a reason added
// here without a status fails to compile; the broker maps reasons to CONNACK codes the same way.

export const REASONS = [
  'AUTHORIZATION_REQUIRED',
  'INVALID_TOKEN',
  'PERMISSION_DENIED',
  'INVALID_PARAMETERS',
  'MISSING_PARAMETERS',
  'INVALID_JSON',
  'BODY_TOO_LARGE',
  'READ_ONLY_FIELD',
  'UNKNOWN_DEVICE_CLASS',
  'DEVICE_OFFLINE',
  'DEVICE_NOT_CLAIMABLE',
  'DEVICE_ALREADY_IN_HOME',
  'BLOCKING_LOG_REQUEST',
  'LIMIT_EXCEEDED',
  // docs/api.md#errors: the thing is not in a state that allows it (a finished outbox command)
  'INVALID_STATE',
  'ALREADY_EXISTS',
  'LAST_OWNER',
  'NOT_FOUND',
  'DEVICE_NOT_FOUND',
  'KEY_NOT_FOUND',
  'REQUEST_NOT_FOUND',
  'BUNDLE_NOT_FOUND',
  'MODULE_NOT_FOUND',
  'HOME_NOT_FOUND',
  'USER_NOT_FOUND',
  'PROJECT_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'DEVICE_IN_USE',
  'KEY_IN_USE',
  'REQUEST_IN_USE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  // refused by Node's HTTP parser before any route (src/http/client-error.ts)
  'BAD_REQUEST',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  // docs/firmware.md#downloading: a Range outside the file
  'RANGE_NOT_SATISFIABLE',
] as const;

export type Reason = (typeof REASONS)[number];

export class AppError extends Error {
  readonly reason: Reason;
  readonly data?: Record<string, unknown>;
  constructor(reason: Reason, data?: Record<string, unknown>) {
    super(data ? `${reason} ${JSON.stringify(data)}` : reason);
    this.name = 'AppError';
    this.reason = reason;
    this.data = data;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
