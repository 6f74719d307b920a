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
// When that sync's batch was small (light load: OVERLAP_BELOW), the next batch commits at once, its
// sync overlapping the one under way (at most MAX_SYNCING batches wait for the disk), and is
// answered after it, in commit order. Waiting for the first sync to end before committing cost an
// item arriving during a sync the rest of that sync plus a whole sync of its own, while two
// overlapping fdatasyncs of one file end about when one alone would (the journal takes both in
// one flush): at half load of `npm run bench -- webhooks` the sync's tail was the tail of the
// whole path (issue #26). Under a backlog (a big batch syncing) the next batch still gathers
// until the sync ends: fewer, bigger commits cost less CPU per item.
//
// When idle, one item commits at once (no timer, no added latency). During a storm, the next
// commit gathers first: SQLite commits synchronously (its statements block the event loop, and
// so did its fsync before `durable`), so little arrives during a commit, and a connect storm
// committed one presence flip per fsync (issue #25: 1.04 items per commit at 3,000 devices). So
// an item that arrives less than STORM_GAP_MS after the previous commit ended waits up to GATHER_PER_COMMIT
// times as long as that commit took (at most MAX_GATHER_MS) for others to share its commit, or
// until the batch is full. The factor bounds the share of a storm the event loop spends blocked
// in commits (on SQLite) to 1 / (1 + GATHER_PER_COMMIT): with a window as long as the commit,
// half of it went to waiting for the disk, and a storm connected at about half the rate the CPU
// allowed whatever the fleet's size (issue #25: about 320 connects/s at 1,000 and at 5,000
// devices). A lone event after a quiet moment is never delayed, and only items the owner marks as
// storm-prone (`gathers`: the pipeline's presence flips) wait at all: one device publishing events
// back to back, each after the last one's ack, would otherwise wait a window before every commit.

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
/** batches committed and waiting for `durable` at once: the next commits once the oldest is answered */
const MAX_SYNCING = 2;
/** a batch this small says the load is light: the next one need not wait for its sync to gather */
const OVERLAP_BELOW = 16;
/** the longest an item waits for others to share its commit */
const MAX_GATHER_MS = 100;
/** during a storm, the window is this many times the last commit's duration */
const GATHER_PER_COMMIT = 4;

export interface GroupCommitOptions<T> {
  /** the longest an item waits for others during a storm (MAX_GATHER_MS, 100); 0: never waits */
  maxGatherMs?: number;
  /** which items may wait for others (all by default); an item that may not commits at once */
  gathers?: (item: T) => boolean;
  /**
   * makes the batch's commits durable when `commit` leaves that for later (Store.synced: SQLite's
   * WAL synced off the event loop): once per batch, after its commits and before any of its
   * waiters is answered; when it fails, every waiter the batch committed is rejected. The next
   * batch may call it before the last call has resolved (their syncs overlap); waiters are
   * answered in commit order all the same, and an owner whose `durable` does more than wait
   * keeps that in order too (pipeline.ts hands deliveries over in commit order)
   */
  durable?: () => Promise<void>;
}

export class GroupCommit<T> {
  private queue: Waiter<T>[] = [];
  /** a batch's commit is under way */
  private running = false;
  /** batches committed whose waiters are not answered yet (waiting for `durable`) */
  private syncing = 0;
  /** the last batch's answering: the next is answered after it */
  private answered: Promise<void> = Promise.resolve();
  /** items in the last batch committed */
  private lastSize = 0;
  /** a drain is scheduled (setImmediate or the gathering timer) */
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  /** when the last commit ended, and how long it took (performance.now() ms) */
  private lastEnd = -Infinity;
  private lastMs = 0;
  private readonly maxGatherMs: number;
  private readonly gathers: ((item: T) => boolean) | undefined;
  private readonly durable: (() => Promise<void>) | undefined;

  constructor(
    private readonly commit: CommitBatch<T>,
    opts: GroupCommitOptions<T> = {},
  ) {
    this.maxGatherMs = opts.maxGatherMs ?? MAX_GATHER_MS;
    this.gathers = opts.gathers;
    this.durable = opts.durable;
  }

  /** resolves once `item` is committed */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running) return; // the drain under way schedules what is left
      // a full batch does not wait for the rest of its window
      if (this.queue.length >= MAX_BATCH && this.timer) {
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
    // a batch syncing: the next commits beside it only at light load (the end of a sync schedules it otherwise)
    if (this.syncing > 0 && (this.syncing >= MAX_SYNCING || this.lastSize >= OVERLAP_BELOW)) return;
    this.scheduled = true;
    const wait = this.queue.length >= MAX_BATCH ? 0 : this.gatherMs();
    const fire = () => {
      this.timer = undefined;
      this.scheduled = false;
      void this.drain();
    };
    // whatever arrives in this turn of the event loop joins the same commit
    if (wait === 0) setImmediate(fire);
    else this.timer = setTimeout(fire, wait);
  }

  /** 0 when idle; during a storm, GATHER_PER_COMMIT times as long as the last commit took */
  private gatherMs(): number {
    if (!this.maxGatherMs || performance.now() - this.lastEnd >= STORM_GAP_MS) return 0;
    if (this.gathers && !this.gathers(this.queue[0].item)) return 0;
    return Math.max(1, Math.min(this.maxGatherMs, Math.round(GATHER_PER_COMMIT * this.lastMs)));
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    let committed: Waiter<T>[];
    try {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.lastSize = batch.length;
      const t0 = performance.now();
      committed = await this.commitBatch(batch);
      // the commits' own time: the event loop is free while `durable` waits for the disk
      this.lastMs = performance.now() - t0;
    } finally {
      this.running = false;
    }
    this.syncing++;
    const answered = this.settle(committed, this.answered);
    this.answered = answered;
    // what arrived during the commit commits now, its sync overlapping this batch's (light load)
    this.schedule();
    await answered;
  }

  /** commits the batch; returns the waiters whose items were committed (the others are rejected) */
  private async commitBatch(batch: Waiter<T>[]): Promise<Waiter<T>[]> {
    try {
      await this.commit(batch.map((w) => w.item));
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
          committed.push(w);
        } catch (e) {
          w.reject(e);
        }
      }
      return committed;
    }
  }

  /** answers the committed waiters once their commits are durable, after the batch before (`before`: its answering, which never rejects) */
  private async settle(committed: Waiter<T>[], before: Promise<void>): Promise<void> {
    let failed: { err: unknown } | undefined;
    try {
      if (this.durable && committed.length) await this.durable();
    } catch (err) {
      failed = { err };
    }
    await before;
    this.syncing--;
    this.lastEnd = performance.now();
    if (failed) for (const w of committed) w.reject(failed.err);
    else for (const w of committed) w.resolve();
    // what arrived meanwhile: the storm goes on, so it gathers first (a full batch does not)
    this.schedule();
  }
}
