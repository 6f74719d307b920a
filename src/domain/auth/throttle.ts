// Guessing is slowed down (docs/concepts.md, issue F5): failed logins per account and per client IP,
// claim codes and provisioning tokens per client IP and per credential, back off exponentially.
// While a key waits, its attempts are answered 429 RATE_LIMITED with the time left, before the
// secret is even looked at; the failure that starts a wait is answered the same way. Counts live
// in the RateLimiter port's failure counter (Redis in cluster mode: every api node sees them) and
// are forgotten after the window, so a real user is never kept out longer than that.
// Sign-in is bounded per (account, address) and per address, with a much higher bound per account
// from everywhere that holds back only addresses that failed on it (signIn, docs/api.md#sign-in-throttling).
import type { AuthThrottle, FailureCounter } from '../../ports/rate-limiter.js';
import { AppError, isAppError, type Reason } from '../errors.js';

export interface Lane {
  key: string;
  policy: 'account' | 'client' | 'accountGlobal';
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

/** the lanes of one sign-in: the account from this address (`pair`), this address, the account from everywhere */
export interface SignInLanes {
  pair: Lane;
  client: Lane;
  account: Lane;
}

/**
 * A sign-in under its lanes (docs/api.md#sign-in-throttling). The address's own lanes bound it always;
 * the account's global lane only for an address that has failed on this account, so wrong guesses
 * from elsewhere never keep the real user, on a clean address, out. Every failure counts on all
 * three; a success forgets the pair only (the address's and the account's counts stay, so one good
 * password neither lets its holder spray others nor resets a distributed guess against it).
 */
export async function throttledSignIn<T>(t: AuthThrottle | undefined, lanes: SignInLanes, failures: readonly Reason[], attempt: () => Promise<T>): Promise<T> {
  if (!t) return attempt();
  const f = t.failures;
  const [pairWait, clientWait, accountWait, pairFailures] = await Promise.all([
    f.waitOf(lanes.pair.key),
    f.waitOf(lanes.client.key),
    f.waitOf(lanes.account.key),
    f.countOf(lanes.pair.key),
  ]);
  const wait = Math.max(pairWait, clientWait, pairFailures > 0 ? accountWait : 0);
  if (wait > 0) throw rateLimited(wait);
  let out: T;
  try {
    out = await attempt();
  } catch (err) {
    if (isAppError(err) && failures.includes(err.reason)) {
      const started = await countFailure(t, [lanes.pair, lanes.client, lanes.account]);
      if (started > 0) throw rateLimited(started);
    }
    throw err;
  }
  await f.reset(lanes.pair.key);
  return out;
}

/** the throttle from its settings (config `authThrottle`, in seconds) */
export function authThrottleOf(
  failures: FailureCounter,
  s: {
    accountFreeFailures: number;
    clientFreeFailures: number;
    accountGlobalFreeFailures: number;
    baseDelaySeconds: number;
    maxDelaySeconds: number;
    windowSeconds: number;
  },
): AuthThrottle {
  const common = { baseMs: s.baseDelaySeconds * 1000, maxMs: s.maxDelaySeconds * 1000, windowMs: s.windowSeconds * 1000 };
  return {
    failures,
    account: { free: s.accountFreeFailures, ...common },
    client: { free: s.clientFreeFailures, ...common },
    accountGlobal: { free: s.accountGlobalFreeFailures, ...common },
  };
}
