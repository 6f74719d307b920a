// What an attempt's result means for the delivery (docs/webhooks.md): success on any 2xx; retry on
// connection errors, timeouts, 5xx and 429 (Retry-After honoured) following the configured
// schedule with jitter; 410 disables the webhook; other 4xx, redirects (never followed) and
// refused targets fail at once; a delivery out of retries stays `failed`.
import type { WebhookResult } from '../client/http-client.js';

export type Decision = { status: 'success' } | { status: 'pending'; delayMs: number } | { status: 'failed'; reason: string; disable?: boolean };

// Errors that another try cannot fix: the request itself or the target policy is the problem.
const PERMANENT_ERRORS = new Set([
  'TARGET_NOT_ALLOWED',
  'INVALID_URL',
  'INVALID_REQUEST',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_INVALID_URL',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_INVALID_PROTOCOL',
]);
const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** ±25% around each scheduled delay, so receivers that fail together are not retried together */
export const JITTER = 0.25;

export function decide(r: WebhookResult, roundAttempts: number, scheduleSeconds: readonly number[], random: () => number = Math.random): Decision {
  const status = r.status;
  if (status !== undefined && status >= 200 && status < 300) return { status: 'success' };
  if (status === 410) return { status: 'failed', reason: 'the receiver answered 410 Gone', disable: true };
  let retryable: boolean;
  if (status === undefined) retryable = !PERMANENT_ERRORS.has(r.error ?? '');
  else retryable = status === 429 || status >= 500;
  const why = r.error ?? `HTTP ${status}`;
  if (!retryable) return { status: 'failed', reason: why };
  // roundAttempts counts the attempt just made: the first retry waits schedule[0]
  if (roundAttempts > scheduleSeconds.length) return { status: 'failed', reason: `${why}; no retries left after ${roundAttempts} attempts` };
  if ((status === 429 || status === 503) && r.retryAfterMs !== undefined) {
    return { status: 'pending', delayMs: Math.min(Math.max(0, r.retryAfterMs), MAX_RETRY_AFTER_MS) };
  }
  const base = scheduleSeconds[roundAttempts - 1] * 1000;
  return { status: 'pending', delayMs: Math.round(base * (1 - JITTER + 2 * JITTER * random())) };
}
