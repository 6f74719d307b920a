// Group commit of delivery outcomes: deliveries finishing close together are written in one
// statement (Deliveries.completeMany) instead of one each. A delivery's promise settles only once
// its outcome is in the store, so nothing is acknowledged or retried on an unwritten outcome.
import type { Deliveries, DeliveryOutcome } from '../../ports/queue.js';

interface Waiting {
  id: string;
  outcome: DeliveryOutcome;
  resolve: (kept: boolean) => void;
  reject: (err: unknown) => void;
}

export interface OutcomeWriter {
  /** resolves true when written under our lease, false when the lease had been lost */
  write(id: string, outcome: DeliveryOutcome): Promise<boolean>;
}

// a batch never waits for more than this many outcomes; it never waits beyond the current turn
const MAX_BATCH = 200;

export function createOutcomeWriter(queue: Deliveries, workerId: string): OutcomeWriter {
  let waiting: Waiting[] = [];
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();

  async function flush(): Promise<void> {
    scheduled = false;
    const batch = waiting.splice(0, MAX_BATCH);
    if (waiting.length > 0) schedule();
    if (batch.length === 0) return;
    try {
      const kept = await queue.completeMany(workerId, batch.map(({ id, outcome }) => ({ id, outcome })));
      for (const w of batch) w.resolve(kept.has(w.id));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // after the I/O callbacks of this turn, so outcomes arriving together go together; one
    // statement at a time, the next batch gathering meanwhile
    setImmediate(() => {
      writing = writing.then(flush);
    });
  }

  return {
    write(id, outcome) {
      return new Promise((resolve, reject) => {
        waiting.push({ id, outcome, resolve, reject });
        schedule();
      });
    },
  };
}
