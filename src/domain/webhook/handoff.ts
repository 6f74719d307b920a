// Hand-off of new deliveries to a worker in this process. A delivery row written `pending` costs
// the worker a claim query to find it, and waits for a bus message or the poll to be looked for;
// a worker with room can instead take the rows as they are written: they are inserted already
// leased to it (InsertClaim), in the same transaction as their event, and given to it in memory
// once that commits. Nothing else changes: the row is in the queue, leased, exactly as if it had
// been claimed, so a crash, a lost lease or a second worker behave as they do for claimed rows.
//
// A worker offers room only when it knows the queue holds nothing due for it (its last claim came
// back short), so new rows never overtake a backlog or a retry coming due.
//
// The set of claimers belongs to one event pipeline (domain/event/pipeline.ts), built once per
// store by main.ts: a worker attaches to the pipeline it is given, never to a process-wide list.
import type { NewDelivery } from '../../ports/queue.js';
import type { LocalClaimer, Reservation } from '../../ports/pipeline.js';

/** the workers of this process that write to one store */
export class LocalHandoff {
  private readonly claimers = new Set<LocalClaimer>();

  /** a worker offers room for the rows written to this pipeline's store; returns the detach */
  attach(claimer: LocalClaimer): () => void {
    this.claimers.add(claimer);
    return () => void this.claimers.delete(claimer);
  }

  /** the local workers' reservations for `rows`, and the rows left for the queue */
  reserve(rows: NewDelivery[]): { reservations: Reservation[]; rest: NewDelivery[] } {
    const reservations: Reservation[] = [];
    let rest = rows;
    for (const c of this.claimers) {
      if (rest.length === 0) break;
      const r = c.reserve(rest);
      if (!r || r.taken.length === 0) continue;
      reservations.push(r);
      const taken = new Set(r.taken);
      rest = rest.filter((d) => !taken.has(d));
    }
    return { reservations, rest };
  }
}
