// The RateLimiter port: a token bucket per key. Adapters: in-memory and Redis
// (rate-limiter-flexible in both).

export interface RateDecision {
  allowed: boolean;
  /** milliseconds until a request would be allowed again (0 when allowed) */
  retryAfterMs: number;
}

export interface RateLimiter {
  consume(key: string, points?: number): Promise<RateDecision>;
  /** the same decision without a promise, where the adapter decides in memory */
  consumeNow?(key: string, points?: number): RateDecision;
}
