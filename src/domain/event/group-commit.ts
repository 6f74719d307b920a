// Group commit for the event pipeline: every accepted event is written before it is acknowledged
// (a REST 204, an MQTT PUBACK, a CONNACK after the presence flip), and a transaction per event
// caps ingest at what one commit costs. Items that arrive while a commit is under way wait for
// the next one, which writes them all in ONE transaction (and, through `commit`, in one statement
// per table rather than one per item) and then resolves every waiter. Durability is unchanged:
// nobody is answered before their rows are committed.
//
// When the owner's commits leave their durability for later (`durable`: SQLite's WAL synced off
// the event loop, docs/operations.md#durability), a batch's waiters are answered once it returns;
// the event loop keeps reading while the disk syncs, and what arrives meanwhile is the next batch.
//
// When idle, one item commits at once (no timer, no added latency). During a storm, the next
// commit gathers first: SQLite commits synchronously (its statements block the event loop, and
// so did its fsync before `durable`), so little arrives during a commit, and a connect storm
// committed one presence flip per fsync (issue #25: 1.04 items per commit at 3,000 devices). So
// an item that arrives less than STORM_GAP_MS after the previous commit ended waits up to GATHER_PER_COMMIT
// times as long as that commit took, and at least MIN_STORM_GATHER_MS (at most MAX_GATHER_MS),
// for others to share its commit, or until the batch is full. The factor bounds the share of a storm the event loop spends blocked
// in commits (on SQLite) to 1 / (1 + GATHER_PER_COMMIT): with a window as long as the commit,
// half of it went to waiting for the disk, and a storm connected at about half the rate the CPU
// allowed whatever the fleet's size (issue #25: about 320 connects/s at 1,000 and at 5,000
// devices). A lone event after a quiet moment is never delayed, and only items the owner marks as
// storm-prone (`gathers`: the pipeline's presence flips) wait at all: one device publishing events
// back to back, each after the last one's ack, would otherwise wait a window before every commit.
//
// Senders that send their next item only once this one is answered (`senderWaits`: a REST event,
// its connection idle until the 204) come back one by one after their batch is answered, each on
// its own connection: the first few to come back started the next commit alone, the rest came
// during it, and 50 such senders settled into two alternating batches of about 25, each paying a
// commit and a disk sync (`npm run bench -- webhooks`: 26 events a commit over HTTP against 50 over
// MQTT, whose client's publishes come in one read). So once a batch holding two or more of them
// is answered, the next commit waits for as many items as were then queued plus the senders just
// answered, at most the storm window (GATHER_PER_COMMIT times the last commit, at least 1 ms), and
// starts as soon as they are all there. A sender alone is never waited for. Senders that are not
// back within the window (they had nothing more to send: many devices each sending now and then)
// are not waited for after the next batch, nor after the next two once a wait runs out again, and
// so on up to MAX_SKIPPED_WAITS batches, until a wait sees them all back: clients that never come
// back cost one window in MAX_SKIPPED_WAITS batches. Whatever else arrives meanwhile (an MQTT event) shares the
// wait, as it shares a storm's.

/** writes the items in one transaction, all or none */
export type CommitBatch<T> = (items: T[]) => Promise<void>;

interface Waiter<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** enough to amortize a commit; small enough that one transaction stays short */
const MAX_BATCH = 512;
/** an item this soon after the last commit ended is part of a storm */
const STORM_GAP_MS = 50;
/** the longest an item waits for others to share its commit */
const MAX_GATHER_MS = 100;
/** during a storm, the window is this many times the last commit's duration */
const GATHER_PER_COMMIT = 4;
/**
 * and at least this long for items that gather (presence flips): a commit of the pipeline takes
 * well under a millisecond of the event loop, so four times it left windows of 1 to 3 ms, and a
 * 5,000-device connect storm shared a commit between 5.5 to 9 flips; the CPU per connect followed
 * (1,180 and 884 µs). With 10 ms: 24 and 31 flips a commit, 834 and 684 µs, the connect rate 1.11x
 * and 1.39x bare Aedes's against 0.66x and 0.98x (quiet, alternating, issue #25). A CONNACK in a
 * storm waits at most this much more; one after a quiet moment never waits.
 */
const MIN_STORM_GATHER_MS = 10;
/** the most batches after which senders are not waited for, once waits for them keep running out */
const MAX_SKIPPED_WAITS = 16;

export interface GroupCommitOptions<T> {
  /** the longest an item waits for others during a storm (MAX_GATHER_MS, 100); 0: never waits */
  maxGatherMs?: number;
  /** which items may wait for others (all by default); an item that may not commits at once */
  gathers?: (item: T) => boolean;
  /**
   * makes the batch's commits durable when `commit` leaves that for later (Store.synced: SQLite's
   * WAL synced off the event loop): once per batch, after its commits and before any of its
   * waiters is answered; when it fails, every waiter the batch committed is rejected
   */
  durable?: () => Promise<void>;
  /**
   * which items' senders send their next item only once this one is answered: after a batch
   * holding two or more, the next commit waits for them to come back (at most the storm window)
   */
  senderWaits?: (item: T) => boolean;
}

export class GroupCommit<T> {
  private queue: Waiter<T>[] = [];
  private running = false;
  /** a drain is scheduled (setImmediate or the gathering timer) */
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  /** when the last commit ended, and how long it took (performance.now() ms) */
  private lastEnd = -Infinity;
  private lastMs = 0;
  private readonly maxGatherMs: number;
  private readonly gathers: ((item: T) => boolean) | undefined;
  private readonly durable: (() => Promise<void>) | undefined;
  private readonly senderWaits: ((item: T) => boolean) | undefined;
  /** the queue length the next commit waits for: the senders just answered are coming back (0: none) */
  private awaited = 0;
  /** batches after which senders are not waited for (a wait for them ran out), and how many the last time */
  private skipWaits = 0;
  private skipped = 0;
  /** transactions committed, and the items in them (their ratio: how well commits are shared) */
  private committedTx = 0;
  private committedItems = 0;

  constructor(
    private readonly commit: CommitBatch<T>,
    opts: GroupCommitOptions<T> = {},
  ) {
    this.maxGatherMs = opts.maxGatherMs ?? MAX_GATHER_MS;
    this.gathers = opts.gathers;
    this.durable = opts.durable;
    this.senderWaits = opts.senderWaits;
  }

  /** transactions this group commit has committed, and the items they held, since it was made */
  counts(): { commits: number; items: number } {
    return { commits: this.committedTx, items: this.committedItems };
  }

  /** resolves once `item` is committed */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running) return; // the drain under way schedules what is left
      // a full batch does not wait for the rest of its window, nor one whose senders are all back
      if ((this.queue.length >= MAX_BATCH || this.queue.length === this.awaited) && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.scheduled = false;
      }
      this.schedule();
    });
  }

  /** the next drain: in this turn's check phase, or after a gathering window during a storm */
  private schedule(): void {
    if (this.scheduled || this.running || !this.queue.length) return;
    this.scheduled = true;
    const wait = this.queue.length >= MAX_BATCH ? 0 : this.gatherMs();
    const fire = () => {
      this.timer = undefined;
      this.scheduled = false;
      // the window ran out before the senders were back: not waited for after the next batches
      if (this.queue.length < this.awaited) this.skipWaits = this.skipped = Math.min(MAX_SKIPPED_WAITS, this.skipped * 2 || 1);
      void this.drain();
    };
    // whatever arrives in this turn of the event loop joins the same commit
    if (wait === 0) setImmediate(fire);
    else this.timer = setTimeout(fire, wait);
  }

  /**
   * 0 when idle; during a storm, GATHER_PER_COMMIT times as long as the last commit took, for
   * items that gather, or until the senders just answered are back
   */
  private gatherMs(): number {
    if (!this.maxGatherMs || performance.now() - this.lastEnd >= STORM_GAP_MS) return 0;
    const window = Math.max(1, Math.min(this.maxGatherMs, Math.round(GATHER_PER_COMMIT * this.lastMs)));
    if (this.queue.length < this.awaited) return window;
    if (this.gathers && !this.gathers(this.queue[0].item)) return 0;
    return Math.max(window, Math.min(this.maxGatherMs, MIN_STORM_GATHER_MS));
  }

  /** what the next commit waits for, once the batch's committed items were answered */
  private awaitSenders(answered: Waiter<T>[]): void {
    this.awaited = 0;
    if (!this.senderWaits) return;
    if (this.skipWaits > 0) {
      this.skipWaits--;
      return;
    }
    let back = 0;
    for (const w of answered) if (this.senderWaits(w.item)) back++;
    if (back >= 2) this.awaited = this.queue.length + back;
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // the senders waited for are all back: waits are worth it again
      if (this.awaited > 0 && this.queue.length >= this.awaited) this.skipped = 0;
      const batch = this.queue.splice(0, MAX_BATCH);
      const t0 = performance.now();
      const committed = await this.commitBatch(batch);
      // the commits' own time: the event loop is free while `durable` waits for the disk
      this.lastMs = performance.now() - t0;
      await this.settle(committed);
      this.lastEnd = performance.now();
      this.awaitSenders(committed);
    } finally {
      this.running = false;
      // what arrived meanwhile: the storm goes on, so it gathers first (a full batch does not)
      this.schedule();
    }
  }

  /** commits the batch; returns the waiters whose items were committed (the others are rejected) */
  private async commitBatch(batch: Waiter<T>[]): Promise<Waiter<T>[]> {
    try {
      await this.commit(batch.map((w) => w.item));
      this.committedTx++;
      this.committedItems += batch.length;
      return batch;
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return [];
      }
      // one bad write must not fail the others: each alone, in its own transaction
      const committed: Waiter<T>[] = [];
      for (const w of batch) {
        try {
          await this.commit([w.item]);
          this.committedTx++;
          this.committedItems++;
          committed.push(w);
        } catch (e) {
          w.reject(e);
        }
      }
      return committed;
    }
  }

  /** answers the committed waiters once their commits are durable */
  private async settle(committed: Waiter<T>[]): Promise<void> {
    if (!committed.length) return;
    try {
      if (this.durable) await this.durable();
    } catch (err) {
      for (const w of committed) w.reject(err);
      return;
    }
    for (const w of committed) w.resolve();
  }
}
