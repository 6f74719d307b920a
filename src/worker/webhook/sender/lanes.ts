// Fairness between receivers: each webhook (a lane) may hold only part of the worker's
// concurrency, sized like TCP slow start. A new lane starts with INITIAL_CAP requests in flight,
// gains one per success up to the worker's concurrency, and halves on a timeout, connection error
// or 5xx. A receiver that never answers therefore holds at most a slot or two for the length of a
// timeout, while a healthy one soon uses the whole worker. Lanes at their cap are left out of the
// next claim (the queue keeps their rows for later).

export const INITIAL_CAP = 2;
// lanes remembered; idle ones are forgotten first
const MAX_LANES = 10_000;

export type LaneSignal = 'ok' | 'slow' | 'neutral';

interface Lane {
  cap: number;
  inflight: number;
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  constructor(private readonly max: number) {}

  private lane(key: string): Lane {
    let l = this.lanes.get(key);
    if (!l) {
      if (this.lanes.size >= MAX_LANES) this.forgetIdle();
      l = { cap: Math.min(INITIAL_CAP, this.max), inflight: 0 };
      this.lanes.set(key, l);
    }
    return l;
  }

  /** takes a slot of the lane if it has room */
  tryAcquire(key: string): boolean {
    const l = this.lane(key);
    if (l.inflight >= l.cap) return false;
    l.inflight++;
    return true;
  }

  release(key: string, signal: LaneSignal): void {
    const l = this.lane(key);
    l.inflight = Math.max(0, l.inflight - 1);
    if (signal === 'ok') l.cap = Math.min(this.max, l.cap + 1);
    else if (signal === 'slow') l.cap = Math.max(1, Math.floor(l.cap / 2));
  }

  /** lanes with no room: the claim skips them */
  full(): string[] {
    const out: string[] = [];
    for (const [key, l] of this.lanes) if (l.inflight >= l.cap) out.push(key);
    return out;
  }

  capOf(key: string): number {
    return this.lanes.get(key)?.cap ?? Math.min(INITIAL_CAP, this.max);
  }

  inflightOf(key: string): number {
    return this.lanes.get(key)?.inflight ?? 0;
  }

  /** every lane seen (and not forgotten) */
  known(): string[] {
    return [...this.lanes.keys()];
  }

  private forgetIdle(): void {
    for (const [key, l] of this.lanes) if (l.inflight === 0) this.lanes.delete(key);
  }
}
