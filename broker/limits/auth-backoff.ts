// docs/devices.md#mqtt: repeated failed CONNECTs (bad device credentials) from one address are slowed down;
// the same for bad device keys on the command and KV WebSocket paths. Each failure from an
// address doubles the wait before its refusal is answered (CONNACK 4/5, or the HTTP refusal of
// the upgrade), from `baseMs` up to `maxMs`; an address that stops failing for `forgetMs` starts
// again from nothing. A success does not clear the count (a guesser holding one valid key could
// otherwise reset it between guesses). Memory-bounded: at most `maxAddresses` are remembered,
// the oldest forgotten first. Per broker node (the RateLimiter port is a token bucket, not a
// failure count; a guesser spreading over N nodes gets N times the attempts, still exponential).

interface Entry {
  failures: number;
  last: number;
}

export interface AuthBackoffOptions {
  baseMs: number;
  maxMs: number;
  /** an address idle this long (no failure) is forgotten; default 10 × maxMs */
  forgetMs?: number;
  maxAddresses?: number;
}

export class AuthBackoff {
  private readonly byAddress = new Map<string, Entry>();
  private readonly forgetMs: number;
  private readonly maxAddresses: number;

  constructor(private readonly opts: AuthBackoffOptions) {
    this.forgetMs = opts.forgetMs ?? opts.maxMs * 10;
    this.maxAddresses = opts.maxAddresses ?? 10_000;
  }

  /** records a failure; answers how long to wait before the refusal is sent */
  failed(address: string | undefined, now = Date.now()): number {
    if (!address) return 0;
    let e = this.byAddress.get(address);
    if (e && now - e.last > this.forgetMs) e = undefined;
    if (e)
      this.byAddress.delete(address); // re-inserted last: the Map stays in age order
    else if (this.byAddress.size >= this.maxAddresses) this.prune(now);
    e = { failures: (e?.failures ?? 0) + 1, last: now };
    this.byAddress.set(address, e);
    // the first failure is answered at once (a typo), then 1×, 2×, 4× ... baseMs
    if (e.failures === 1) return 0;
    return Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** Math.min(e.failures - 2, 30));
  }

  /** failures remembered for this address (tests, metrics) */
  failuresOf(address: string): number {
    return this.byAddress.get(address)?.failures ?? 0;
  }

  get size(): number {
    return this.byAddress.size;
  }

  private prune(now: number): void {
    for (const [k, e] of this.byAddress) {
      if (now - e.last <= this.forgetMs) break; // age order: the rest are newer
      this.byAddress.delete(k);
    }
    // still full: forget the oldest quarter
    if (this.byAddress.size >= this.maxAddresses) {
      let drop = this.byAddress.size >> 2 || 1;
      for (const k of this.byAddress.keys()) {
        if (drop-- <= 0) break;
        this.byAddress.delete(k);
      }
    }
  }
}

/** waits `ms` (unref'd: a closing process does not wait for a refusal) */
export const delay = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms).unref()) : Promise.resolve());
