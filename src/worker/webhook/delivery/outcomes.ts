// Group commit of delivery outcomes: deliveries finishing close together are written in one
// statement (Deliveries.completeMany) instead of one each. A delivery's promise settles only once
// its outcome is in the store, so nothing is acknowledged or retried on an unwritten outcome.
import type { Deliveries, DeliveryOutcome } from '../../../ports/queue.js';

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

// A batch gathers the outcomes of a window, not only of one turn: each batch is a write
// transaction (a WAL commit on SQLite: with synchronous=full an fsync that blocks the event loop,
// and the same queue pages written to the WAL again), and nothing waits on it but the delivery's
// own record — the slot the delivery held was freed when its exchange ended (sender-core.ts). At
// a thousand deliveries a second a 2 ms window wrote a handful per commit; 20 ms writes tens.
const WINDOW_MS = 20;
// a batch never waits for more than this many outcomes
const MAX_BATCH = 500;

export function createOutcomeWriter(queue: Deliveries, workerId: string): OutcomeWriter {
  let waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  async function flush(): Promise<void> {
    const batch = waiting.splice(0, MAX_BATCH);
    if (waiting.length > 0) schedule(0);
    if (batch.length === 0) return;
    try {
      const kept = await queue.completeMany(
        workerId,
        batch.map(({ id, outcome }) => ({ id, outcome })),
      );
      for (const w of batch) w.resolve(kept.has(w.id));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }

  function schedule(ms: number): void {
    if (timer) {
      if (ms > 0) return;
      clearTimeout(timer);
    }
    // one statement at a time, the next batch gathering meanwhile
    timer = setTimeout(() => {
      timer = undefined;
      writing = writing.then(flush);
    }, ms);
  }

  return {
    write(id, outcome) {
      return new Promise((resolve, reject) => {
        waiting.push({ id, outcome, resolve, reject });
        schedule(waiting.length >= MAX_BATCH ? 0 : WINDOW_MS);
      });
    },
  };
}
