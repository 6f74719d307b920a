// What the runner holds, per lane (one webhook): rows being resolved, with the sender, or being
// committed for it by the hand-off. A lane may hold its cap (as the sender last reported it,
// lanes.ts) times (1 + bufferPerSlot): enough to refill a freed slot at once, few enough that a
// lane going slow does not sit on rows another worker could deliver.
import { INITIAL_CAP } from '../sender/lanes.js';

// caps remembered; those of lanes holding nothing are forgotten first (as lanes.ts does)
const MAX_LANES = 10_000;

export class Holdings {
  private readonly held = new Map<string, number>();
  private readonly caps = new Map<string, number>();
  total = 0;

  constructor(
    private readonly concurrency: number,
    private readonly bufferPerSlot: number,
    /** told when a lane gives a row up */
    private readonly freed: (lane: string) => void,
  ) {}

  of(lane: string): number {
    return this.held.get(lane) ?? 0;
  }

  limitOf(lane: string): number {
    return (this.caps.get(lane) ?? Math.min(INITIAL_CAP, this.concurrency)) * (1 + this.bufferPerSlot);
  }

  full(lane: string): boolean {
    return this.of(lane) >= this.limitOf(lane);
  }

  /** lanes with no room: a claim leaves them out */
  fullLanes(): string[] {
    return [...this.held.keys()].filter((l) => this.full(l));
  }

  hold(lane: string): void {
    this.held.set(lane, this.of(lane) + 1);
    this.total++;
  }

  unhold(lane: string): void {
    const n = this.of(lane) - 1;
    if (n > 0) this.held.set(lane, n);
    else this.held.delete(lane);
    this.total--;
    this.freed(lane);
  }

  setCap(lane: string, cap: number): void {
    if (!this.caps.has(lane) && this.caps.size >= MAX_LANES) for (const l of this.caps.keys()) if (!this.held.has(l)) this.caps.delete(l);
    this.caps.set(lane, cap);
  }
}
