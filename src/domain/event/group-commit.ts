// Group commit for the event pipeline: every accepted event is written before it is acknowledged
// (a REST 204, an MQTT PUBACK), and a transaction per event caps ingest at what one commit costs.
// Items that arrive while a commit is under way wait for the next one, which writes them all in
// ONE transaction (and, through `commit`, in one statement per table rather than one per item)
// and then resolves every waiter: under load a commit carries hundreds of events, when idle one
// event commits at once (no timer, no added latency). Durability is unchanged: nobody is
// answered before their rows are committed.

/** writes the items in one transaction, all or none */
export type CommitBatch<T> = (items: T[]) => Promise<void>;

interface Waiter<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** enough to amortize a commit; small enough that one transaction stays short */
const MAX_BATCH = 512;

export class GroupCommit<T> {
  private queue: Waiter<T>[] = [];
  private running = false;

  constructor(private readonly commit: CommitBatch<T>) {}

  /** resolves once `item` is committed */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
        await this.commitBatch(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async commitBatch(batch: Waiter<T>[]): Promise<void> {
    try {
      await this.commit(batch.map((w) => w.item));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // one bad write must not fail the others: each alone, in its own transaction
      for (const w of batch) {
        try {
          await this.commit([w.item]);
          w.resolve();
        } catch (e) {
          w.reject(e);
        }
      }
    }
  }
}
