// Guessing is slowed down (docs/concepts.md, issue F5): failed logins per account and per client IP,
// claim codes and provisioning tokens per client IP and per credential, back off exponentially.
// While a key waits, its attempts are answered 429 RATE_LIMITED with the time left, before the
// secret is even looked at; the failure that starts a wait is answered the same way. Counts live
// in the RateLimiter port's failure counter (Redis in cluster mode: every api node sees them) and
// are forgotten after the window, so a real user is never kept out longer than that.
import type { FailureCounter, FailurePolicy } from '../../ports/rate-limiter.js';
import { AppError, isAppError, type Reason } from '../errors.js';

export interface AuthThrottle {
  failures: FailureCounter;
  /** one account (project + email): few free failures */
  account: FailurePolicy;
  /** one client IP, or one credential: more (a household or an office shares an address) */
  client: FailurePolicy;
}

export interface Lane {
  key: string;
  policy: 'account' | 'client';
}

export const rateLimited = (waitMs: number) => new AppError('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) });

/** RATE_LIMITED while any lane still waits */
export async function refuseWhileWaiting(t: AuthThrottle, lanes: readonly Lane[]): Promise<void> {
  const waits = await Promise.all(lanes.map((l) => t.failures.waitOf(l.key)));
  const wait = Math.max(0, ...waits);
  if (wait > 0) throw rateLimited(wait);
}

/** counts a failure on every lane; the longest wait it starts (0: none) */
export async function countFailure(t: AuthThrottle, lanes: readonly Lane[]): Promise<number> {
  const waits = await Promise.all(lanes.map((l) => t.failures.fail(l.key, t[l.policy])));
  return Math.max(0, ...waits);
}

/**
 * Runs one attempt under the lanes: refused while they wait; an error whose reason is in
 * `failures` is counted (and becomes RATE_LIMITED when it starts a wait); a success forgets the
 * lanes in `resetOnSuccess`. Without a throttle (tests, tools) the attempt just runs.
 */
export async function throttled<T>(
  t: AuthThrottle | undefined,
  lanes: readonly Lane[],
  failures: readonly Reason[],
  attempt: () => Promise<T>,
  resetOnSuccess: readonly Lane[] = [],
): Promise<T> {
  if (!t) return attempt();
  await refuseWhileWaiting(t, lanes);
  let out: T;
  try {
    out = await attempt();
  } catch (err) {
    if (isAppError(err) && failures.includes(err.reason)) {
      const wait = await countFailure(t, lanes);
      if (wait > 0) throw rateLimited(wait);
    }
    throw err;
  }
  await Promise.all(resetOnSuccess.map((l) => t.failures.reset(l.key)));
  return out;
}

/** the throttle from its settings (config `authThrottle`, in seconds) */
export function authThrottleOf(
  failures: FailureCounter,
  s: { accountFreeFailures: number; clientFreeFailures: number; baseDelaySeconds: number; maxDelaySeconds: number; windowSeconds: number },
): AuthThrottle {
  const common = { baseMs: s.baseDelaySeconds * 1000, maxMs: s.maxDelaySeconds * 1000, windowMs: s.windowSeconds * 1000 };
  return { failures, account: { free: s.accountFreeFailures, ...common }, client: { free: s.clientFreeFailures, ...common } };
}
