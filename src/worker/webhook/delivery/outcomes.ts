// Group commit of delivery outcomes: deliveries finishing close together are written in one
// statement (Deliveries.completeMany) instead of one each. The outcomes of a report batch
// (dispatch.ts) come in one call and wait on one promise, which settles only once they are in
// the store, so nothing is acknowledged or retried on an unwritten outcome.
import type { Deliveries, DeliveryOutcome } from '../../../ports/queue.js';

/** one delivery's outcome; `projectId` is its row's (the fleet figures count it there) */
export interface Outcome {
  id: string;
  projectId: number;
  outcome: DeliveryOutcome;
}

interface Waiting {
  items: Outcome[];
  resolve: (kept: Set<string>) => void;
  reject: (err: unknown) => void;
}

export interface OutcomeWriter {
  /** resolves with the ids written under our lease (the others' lease had been lost) */
  write(items: Outcome[]): Promise<Set<string>>;
}

// A batch gathers the outcomes of a window, not only of one turn: each batch is a write
// transaction (a WAL commit on SQLite, and the same queue pages written to the WAL again), and
// nothing waits on it but the deliveries' own records — the slot a delivery held was freed when
// its exchange ended (sender-core.ts). At a thousand deliveries a second a 2 ms window wrote a
// handful per commit; 20 ms writes tens. A row's outcome costs less alone the more share its
// commit (7.7 µs CPU an outcome in commits of 25, 6.5 of 50, 5.9 of 100, 5.2 of 200; SQLite,
// fastest of 30 alternating rounds), but a longer window was dearer in the whole path: with 50 ms
// (about 190 outcomes a commit in the webhooks bench's MQTT run, against 76) Hearth took 14 to 15%
// more CPU per MQTT event, every round of two A/B runs against 20 ms, V8's platform threads about
// twice as much and the main thread 8 to 13% more; most likely (not verified) what a batch holds
// (rows, attempts, promises) lives through more scavenges and is promoted to the old generation,
// which the concurrent marker then walks (issue #26, 2026-11-28). A crash loses at most a window of
// outcomes, whose deliveries are sent again (at least once).
const WINDOW_MS = 20;
// a batch stops gathering at this many outcomes (a caller's outcomes are never split)
const MAX_BATCH = 500;

export function createOutcomeWriter(queue: Deliveries, workerId: string): OutcomeWriter {
  let waiting: Waiting[] = [];
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  async function flush(): Promise<void> {
    let n = 0;
    let end = 0;
    while (end < waiting.length && (n === 0 || n + waiting[end].items.length <= MAX_BATCH)) n += waiting[end++].items.length;
    const batch = waiting.slice(0, end);
    waiting = waiting.slice(end);
    count -= n;
    if (waiting.length > 0) schedule(0);
    if (batch.length === 0) return;
    try {
      const kept = await queue.completeMany(workerId, batch.length === 1 ? batch[0].items : batch.flatMap((w) => w.items));
      for (const w of batch) w.resolve(kept);
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
    write(items) {
      if (items.length === 0) return Promise.resolve(new Set());
      return new Promise((resolve, reject) => {
        waiting.push({ items, resolve, reject });
        count += items.length;
        schedule(count >= MAX_BATCH ? 0 : WINDOW_MS);
      });
    },
  };
}
