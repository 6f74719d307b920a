// Failed attempts per key in memory (embedded mode, and the Redis adapter's insurance while Redis
// is away): a count, the time its wait ends and the time it is forgotten. Bounded: entries that
// have expired are swept, and when still full the oldest are dropped (a flood of fresh keys
// forgets old counts rather than the process growing without end).
import { failureWait, type FailureCounter } from '../../ports/rate-limiter.js';

interface Entry {
  n: number;
  /** ms since the epoch when the key may try again */
  until: number;
  /** ms since the epoch when the count is forgotten */
  expires: number;
}

export function createMemoryFailureCounter(opts: { now?: () => number; maxKeys?: number } = {}): FailureCounter {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  const byKey = new Map<string, Entry>();
  const live = (key: string, t: number): Entry | undefined => {
    const e = byKey.get(key);
    if (e && e.expires <= t) {
      byKey.delete(key);
      return undefined;
    }
    return e;
  };
  const makeRoom = (t: number) => {
    for (const [k, e] of byKey) if (e.expires <= t) byKey.delete(k);
    let drop = byKey.size - Math.floor(maxKeys / 2);
    if (byKey.size < maxKeys) return;
    for (const k of byKey.keys()) {
      if (drop-- <= 0) break;
      byKey.delete(k);
    }
  };
  return {
    async waitOf(key) {
      const t = now();
      const e = live(key, t);
      return e ? Math.max(0, e.until - t) : 0;
    },
    async countOf(key) {
      return live(key, now())?.n ?? 0;
    },
    async fail(key, policy) {
      const t = now();
      let e = live(key, t);
      if (!e) {
        if (byKey.size >= maxKeys) makeRoom(t);
        e = { n: 0, until: 0, expires: 0 };
      }
      // re-inserted: the Map's order stays the order of last failure (oldest dropped first)
      byKey.delete(key);
      byKey.set(key, e);
      e.n += 1;
      const wait = failureWait(e.n, policy);
      if (wait > 0) e.until = t + wait;
      e.expires = Math.max(t + policy.windowMs, e.until);
      return wait;
    },
    async reset(key) {
      byKey.delete(key);
    },
  };
}
