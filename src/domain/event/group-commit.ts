// Group commit for the event pipeline: every accepted event is written before it is acknowledged
// (a REST 204, an MQTT PUBACK), and a transaction per event caps ingest at what one commit costs.
// Writes that arrive while a commit is under way wait for the next one, which takes them all in
// ONE transaction and then resolves every waiter: under load a commit carries hundreds of
// events, when idle one event commits at once (no timer, no added latency). Durability is
// unchanged: nobody is answered before their rows are committed.
import type { Store } from '../../ports/store.js';

type Work = (tx: Store) => Promise<void>;

interface Waiter {
  work: Work;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** enough to amortize a commit; small enough that one transaction stays short */
const MAX_BATCH = 512;

class GroupCommit {
  private queue: Waiter[] = [];
  private running = false;

  constructor(private readonly store: Store) {}

  run(work: Work): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ work, resolve, reject });
      // whatever arrives in this turn of the event loop joins the same commit
      if (!this.running && this.queue.length === 1) setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.commit(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async commit(batch: Waiter[]): Promise<void> {
    try {
      await this.store.transaction(async (tx) => {
        for (const w of batch) await w.work(tx);
      });
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // one bad write must not fail the others: each alone, in its own transaction
      for (const w of batch) {
        try {
          await this.store.transaction(w.work);
          w.resolve();
        } catch (e) {
          w.reject(e);
        }
      }
    }
  }
}

const committers = new WeakMap<Store, GroupCommit>();

/** runs `work` in a transaction shared with the other writes of this moment; resolves once committed */
export function groupCommit(store: Store, work: Work): Promise<void> {
  let g = committers.get(store);
  if (!g) committers.set(store, (g = new GroupCommit(store)));
  return g.run(work);
}
