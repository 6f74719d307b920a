// Claimed rows waiting for a free slot of the worker and of their lane. They are leased to this
// worker, so they must start (or go back to the queue) well before the lease ends.
import type { DeliveryRow } from '../../ports/queue.js';

export interface Buffered {
  row: DeliveryRow;
  lane: string;
  at: number;
}

export class ClaimBuffer {
  private readonly rows: Buffered[] = [];
  private readonly perLane = new Map<string, number>();

  get size(): number {
    return this.rows.length;
  }

  countOf(lane: string): number {
    return this.perLane.get(lane) ?? 0;
  }

  push(b: Buffered): void {
    this.rows.push(b);
    this.perLane.set(b.lane, this.countOf(b.lane) + 1);
  }

  /** takes, oldest first, the rows `admit` lets start (it reserves their slot) */
  take(admit: (b: Buffered) => boolean): Buffered[] {
    const out: Buffered[] = [];
    for (let i = 0; i < this.rows.length; ) {
      if (admit(this.rows[i])) out.push(this.remove(i));
      else i++;
    }
    return out;
  }

  /** removes and returns rows held longer than maxAgeMs (their lane went slow) */
  stale(now: number, maxAgeMs: number): Buffered[] {
    return this.take((b) => now - b.at > maxAgeMs);
  }

  /** empties the buffer */
  drain(): Buffered[] {
    return this.take(() => true);
  }

  private remove(i: number): Buffered {
    const [b] = this.rows.splice(i, 1);
    this.perLane.set(b.lane, this.countOf(b.lane) - 1);
    if (this.countOf(b.lane) === 0) this.perLane.delete(b.lane);
    return b;
  }
}
