// SQLite's checkpoints off the event loop (issue #26, docs/operations.md#durability).
//
// SQLite copies the WAL into the database file from inside the commit that takes the WAL past
// wal_autocheckpoint pages, on the committing connection: an fsync of the WAL, the copy, an fsync
// of the database file. On the node's one connection that is the event loop, and every event in
// flight waited: at half load of `npm run bench -- webhooks` a checkpoint every quarter second took
// 5 to 8.5 ms, and those were the longest stalls and the webhook p99's tail (2026-11-28).
//
// Here a thread with a connection of its own checkpoints instead, every INTERVAL_MS while the node
// writes (up to IDLE_MS apart while it writes little): SQLite's PASSIVE checkpoint (it takes no
// lock a writer waits for) in SQLite's own order (the WAL synced before the copy, the database
// file synced before the WAL may start over), so durability is SQLite's as before; nothing here
// decides what is safe to copy or overwrite. The hold below is a matter of speed only.
//
// SQLite starts the WAL over only at a write that finds every frame in it copied, and a busy node
// commits every few milliseconds, so a pass nearly always ends after the next commit: without
// more, the WAL would grow to wal_autocheckpoint and the main connection checkpoint on the event
// loop as before. So once a pass leaves RESTART_FRAMES or more in the WAL, the next pass runs
// while the main connection is held (Kysely's connection, which every statement of the node waits
// for): it copies what the last pass left (the commits of a few milliseconds), and the first write
// after it starts the WAL over. The event loop runs meanwhile (what arrives gathers for the next
// commit); the hold lasts a millisecond or two, once every RESTART_FRAMES frames written.
//
// wal_autocheckpoint stays as the bound: should the thread fall behind or fail, the main connection
// checkpoints as it did before.
import type { Worker } from 'node:worker_threads';
import type { ThreadPort } from '../../ports/thread.js';
import { startThread } from '../thread-port.js';

export type ToCheckpointer = { id: number } | { close: true };
export type FromCheckpointer = { id: number; busy: boolean; log: number } | { id: number; error: string } | { closed: true };

export interface CheckpointFigures {
  /** checkpoints the thread ran (held ones included) */
  passes: number;
  /** passes that failed (an I/O error, the thread's death) or found another checkpoint under way */
  failures: number;
  /** passes that held the main connection, and how long they held it in all (ms) */
  holds: number;
  heldMs: number;
  /** the WAL's frames at the last pass */
  walFrames: number;
}

export interface WalCheckpointer {
  figures(): CheckpointFigures;
  /** the thread while one runs (a test ends it to check that a crash is survived) */
  readonly thread: Worker | undefined;
  /** waits for a pass under way, then ends the thread */
  close(): Promise<void>;
}

export interface WalCheckpointOptions {
  /** the database file (WAL mode) */
  file: string;
  /** fn while no other statement runs on the main connection (Kysely's connection held) */
  hold: <T>(fn: () => Promise<T>) => Promise<T>;
  /** a count that moves whenever the main connection writes (SQLite's total_changes()) */
  written: () => number;
  /** a pass failed; the next one is tried after a longer wait (up to MAX_BACKOFF_MS) */
  onError?: (err: Error) => void;
  /** tests: a shorter interval */
  intervalMs?: number;
}

/** how often the thread checkpoints while the node writes */
const INTERVAL_MS = 100;
/**
 * a pass that finds fewer new frames than this waits twice as long for the next, up to IDLE_MS:
 * a node that writes little (a laptop, an SD card) syncs the WAL and the database file for a
 * checkpoint about once a second, not ten times, and the WAL still starts over long before
 * SQLite's bound
 */
const FEW_FRAMES = 250;
const IDLE_MS = 1000;
/**
 * frames left in the WAL after a pass that make the next one hold the main connection, so the WAL
 * starts over: half SQLite's bound (wal_autocheckpoint, connect.ts), about 8 MB
 */
const RESTART_FRAMES = 2000;
/** the longest a held pass keeps the main connection: the thread answers in milliseconds */
const HOLD_TIMEOUT_MS = 1000;
/** after failures, passes wait up to this long */
const MAX_BACKOFF_MS = 10_000;
/** the thread ends on its own once its connection is closed; this only guards against one that cannot */
const CLOSE_TIMEOUT_MS = 10_000;

type Answer = { busy: boolean; log: number };
interface Pending {
  resolve(a: Answer): void;
  reject(err: Error): void;
}

export function walCheckpointer(opts: WalCheckpointOptions): WalCheckpointer {
  const interval = opts.intervalMs ?? INTERVAL_MS;
  const figures: CheckpointFigures = { passes: 0, failures: 0, holds: 0, heldMs: 0, walFrames: 0 };
  let nextId = 1;
  let closed = false;
  let seen = opts.written();
  let wait = interval;
  /** the WAL's frames at the end of the last round */
  let lastLog = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const port: ThreadPort<ToCheckpointer, Pending> = startThread<ToCheckpointer, FromCheckpointer, Pending>({
    from: import.meta.url,
    module: 'wal-checkpoint-thread',
    workerData: { file: opts.file },
    onMessage(m) {
      if ('closed' in m) return;
      const p = port.settle(m.id);
      if (!p) return;
      if ('error' in m) p.reject(new Error(`SQLite checkpoint of ${opts.file} failed: ${m.error}`));
      else p.resolve(m);
    },
    onLost(pending, err) {
      const reason = new Error(`the checkpoint thread stopped${err ? `: ${err.message}` : ''}`);
      for (const p of pending.values()) p.reject(reason);
    },
  });

  async function pass(): Promise<Answer> {
    const id = nextId++;
    const a = await new Promise<Answer>((resolve, reject) => port.post({ id }, [[id, { resolve, reject }]]));
    figures.passes++;
    figures.walFrames = a.log;
    if (a.busy) throw new Error(`SQLite checkpoint of ${opts.file}: another checkpoint was under way`);
    return a;
  }

  /** a pass while the main connection is held, for at most HOLD_TIMEOUT_MS */
  function heldPass(): Promise<void> {
    return opts.hold(async () => {
      const t0 = performance.now();
      let timeout: NodeJS.Timeout | undefined;
      const p = pass();
      try {
        await Promise.race([
          p,
          new Promise<void>((_, reject) => {
            timeout = setTimeout(
              () => reject(new Error(`SQLite checkpoint of ${opts.file}: no answer from the checkpoint thread in ${HOLD_TIMEOUT_MS} ms`)),
              HOLD_TIMEOUT_MS,
            );
          }),
        ]);
      } finally {
        clearTimeout(timeout);
        // a pass answered after the timeout is counted, and nothing else waits for it
        p.catch(() => {});
        figures.holds++;
        figures.heldMs += performance.now() - t0;
      }
    });
  }

  async function round(): Promise<void> {
    // what the thread saw copied is not all there is: the node went on committing meanwhile
    const a = await pass();
    // not while a new thread would start with the connection held (the last one just died)
    if (a.log >= RESTART_FRAMES && !closed && port.thread) await heldPass();
  }

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(tick, wait);
    timer.unref();
  }

  function failed(err: Error): void {
    figures.failures++;
    wait = Math.min(MAX_BACKOFF_MS, wait * 2);
    opts.onError?.(err);
  }

  function tick(): void {
    let now: number;
    try {
      now = opts.written();
    } catch (err) {
      failed(err as Error);
      return schedule();
    }
    if (now === seen) return schedule();
    seen = now;
    running = round()
      .then(() => {
        // frames written since the last pass (the WAL started over if it holds fewer)
        const log = figures.walFrames;
        const grown = log >= lastLog ? log - lastLog : log;
        lastLog = log;
        wait = grown < FEW_FRAMES ? Math.min(IDLE_MS, Math.max(interval, wait * 2)) : interval;
      }, failed)
      .finally(() => {
        running = undefined;
        schedule();
      });
  }

  schedule();
  return {
    figures: () => ({ ...figures }),
    get thread() {
      return port.thread;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
      await port.ask<FromCheckpointer>({ close: true }, (m) => 'closed' in m, CLOSE_TIMEOUT_MS);
      await port.terminate();
    },
  };
}
