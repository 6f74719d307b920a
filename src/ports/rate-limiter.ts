// The RateLimiter port: a token bucket per key, and a failure counter per key for guessing
// (logins, claim codes, provisioning tokens: docs/concepts.md). Adapters: in-memory and Redis.

export interface RateDecision {
  allowed: boolean;
  /** milliseconds until a request would be allowed again (0 when allowed) */
  retryAfterMs: number;
}

/**
 * Exponential backoff of failures: the first `free` failures cost nothing; each further one makes
 * the key wait `baseMs`, then twice that, ... up to `maxMs`. The count is forgotten `windowMs`
 * after the key's last failure (or when its wait ends, if that is later), so a real user is never
 * kept out longer than that once the guessing stops.
 */
export interface FailurePolicy {
  free: number;
  baseMs: number;
  maxMs: number;
  windowMs: number;
}

export interface FailureCounter {
  /** milliseconds the key must still wait because of its failures (0: it may try now) */
  waitOf(key: string): Promise<number>;
  /** the failures the key has on record (0: none, or forgotten) */
  countOf(key: string): Promise<number>;
  /** counts one failure of the key; answers the wait it starts now (0 while failures are free) */
  fail(key: string, policy: FailurePolicy): Promise<number>;
  /** a success: the key's failures are forgotten */
  reset(key: string): Promise<void>;
}

/** docs/concepts.md: guesses back off (domain/auth/throttle.ts applies it); Deps.authThrottle */
export interface AuthThrottle {
  failures: FailureCounter;
  /** one account (project + email) from one address: few free failures */
  account: FailurePolicy;
  /** one client IP, or one credential: more (a household or an office shares an address) */
  client: FailurePolicy;
  /** one account from every address together: many more (a distributed guess) */
  accountGlobal: FailurePolicy;
}

export interface RateLimiter {
  consume(key: string, points?: number): Promise<RateDecision>;
  /** the same decision without a promise, where the adapter decides in memory */
  consumeNow?(key: string, points?: number): RateDecision;
  /** failed attempts per key (shared by every node where the adapter is shared) */
  failures: FailureCounter;
}

/** the wait after `n` failures under the policy (0 while free) */
export function failureWait(n: number, p: FailurePolicy): number {
  if (n <= p.free) return 0;
  return Math.min(p.maxMs, p.baseMs * 2 ** Math.min(n - p.free - 1, 40));
}
