// SQLite's checkpoints off the event loop (docs/operations.md#durability, issue #26).
//
// SQLite copies the WAL into the database file by itself, inside the COMMIT that takes the WAL past
// wal_autocheckpoint pages: on the event loop, with an fsync of the WAL, the copy and an fsync of
// the database file (`BENCH_COMMIT_SPLIT=1 npm run bench -- webhooks`, quiet machine, 3,833
// events/s: 9 such commits in 5 s, p50 6.2 ms, longest 11.8 ms, every event in flight waiting).
// Here a worker thread with its own connection to the file runs PASSIVE checkpoints instead, asked
// every few hundred milliseconds, more often while the WAL grows fast: a PASSIVE checkpoint takes
// no lock a writer waits for, so the event loop commits on meanwhile. Durability is SQLite's own
// as before: the thread's checkpoint syncs the WAL before it copies a frame and the database file
// before it counts the frames as copied, and the writer starts the WAL over (at its next commit,
// with the sync of the new header) only once every frame is copied.
//
// The WAL stays bounded as before: the main connection keeps wal_autocheckpoint (connect.ts,
// 4,000 pages), which the thread's checkpoints keep it under. If the thread falls behind, is
// starved (a long reader, a disk that stalls) or is gone, the WAL reaches it and the commit that
// takes it there checkpoints on the event loop as it always did; the thread counts that it saw
// so (the `fallback` count, on /metrics) and says so through `report`. A thread that died is
// started again at the next ask after STOPPED_PAUSE_MS, and a checkpoint that fails with an I/O
// error stops every acknowledgement as a failed WAL sync does (wal-sync.ts): the checkpoint's
// fsync of the WAL may have been the one that failed.
import { startThread } from '../thread-port.js';
import type { CheckpointerData, FromCheckpointer, ToCheckpointer } from './checkpoint-protocol.js';

export interface CheckpointerStats {
  /** asks the thread answered, and those of them that copied frames into the database */
  asked: number;
  checkpoints: number;
  /** the writer started the WAL over since the ask before (the WAL had been copied whole) */
  restarts: number;
  /** asks that found the WAL at the main connection's limit: that connection checkpointed on the event loop */
  fallbacks: number;
  /** asks that failed, or that the thread's death lost */
  failures: number;
  /** the thread's time in checkpoints, ms */
  threadMs: number;
  /** times the event pipeline's commits waited for the thread to copy the WAL's last frames */
  holds: number;
}

export interface Checkpointer {
  stats(): CheckpointerStats;
  /** where a fallback, a failure or the thread's death is told (main.ts: the log); replaces the one before */
  report(to: (level: 'warn' | 'error', message: string) => void): void;
  /** the thread while one runs (a test ends it to check the fallback) */
  readonly thread: import('node:worker_threads').Worker | undefined;
  /**
   * while the thread copies the WAL's last frames so that the writer may start it over: the event
   * pipeline's commits wait for it (store.ts), the event loop does not
   */
  held(): Promise<void> | undefined;
  /** asks for a checkpoint once the one under way has ended; resolves with the thread's answer (undefined: lost, or closed) */
  checkpoint(): Promise<FromCheckpointer | undefined>;
  /** waits for the checkpoint under way, then ends the thread */
  close(): Promise<void>;
}

// Frames the thread aims to copy per ask: a quarter of the main connection's limit, so that a few
// asks whose catch-ups all miss the moment to start the WAL over still leave it under the limit.
// The ask comes every MIN_MS to MAX_MS, whichever keeps the frames copied per ask near this.
const TARGET_FRAMES = 1000;
const MIN_MS = 25;
const MAX_MS = 1000;
// The writer starts the WAL over only when a checkpoint has copied every frame in it, and under
// load the event pipeline commits again before a pass ends (a webhooks A/B at 1,000 events/s, load
// average 18: one restart in 6 asks, and the main connection's checkpoint at 4,000 pages fired on
// the event loop, its fsync of the database file taking 120 ms). So once the WAL holds
// HOLD_FROM_FRAMES and a pass left frames behind, the pipeline's next commits wait (for at most
// HOLD_MAX_MS) while the thread copies those: the event loop goes on reading, checking and
// answering meanwhile, and the events that came wait in one commit after.
const HOLD_FROM_FRAMES = 2000;
const HOLD_MAX_MS = 50;
// after the thread died or failed, how long the main connection's own checkpoints do it alone
const STOPPED_PAUSE_MS = 30_000;
// a fallback or a failure is told at most this often (with the count since)
const REPORT_EVERY_MS = 60_000;
// the thread ends on its own once its connection is closed; this only guards against one that cannot
const CLOSE_TIMEOUT_MS = 10_000;

interface Pending {
  resolve(m: FromCheckpointer | undefined): void;
}

/**
 * `limit`: the main connection's wal_autocheckpoint; `refuse`: called with a checkpoint's I/O error
 * (wal-sync.ts refuses every acknowledgement after it)
 */
export function createCheckpointer(file: string, synchronous: 'full' | 'normal', limit: number, refuse?: (err: Error) => void): Checkpointer {
  let nextId = 1;
  let closed = false;
  let under: Promise<FromCheckpointer | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let interval = 200;
  /** frames in the WAL at the end of the last answer, and of them copied into the database */
  let lastEnd = 0;
  let lastCopied = 0;
  let lastLeft = 0;
  let holding: Promise<void> | undefined;
  let pausedUntil = 0;
  let reportTo: (level: 'warn' | 'error', message: string) => void = () => {};
  let lastReport = -Infinity;
  let untold = 0;
  const s: CheckpointerStats = { asked: 0, checkpoints: 0, restarts: 0, fallbacks: 0, failures: 0, threadMs: 0, holds: 0 };

  const port = startThread<ToCheckpointer, FromCheckpointer, Pending>({
    from: import.meta.url,
    module: 'checkpoint-thread',
    workerData: { file, synchronous } satisfies CheckpointerData,
    onMessage(m) {
      if ('closed' in m) return;
      port.settle(m.id)?.resolve(m);
    },
    onLost(pending, err) {
      for (const p of pending.values()) p.resolve(undefined);
      s.failures++;
      pausedUntil = Date.now() + STOPPED_PAUSE_MS;
      tell(
        'warn',
        `SQLite checkpointer thread stopped${err ? ` (${err.message})` : ''}: the WAL is checkpointed on the event loop at ${limit} pages until it is started again`,
        true,
      );
    },
  });

  function tell(level: 'warn' | 'error', message: string, now = false): void {
    untold++;
    const t = Date.now();
    if (!now && t - lastReport < REPORT_EVERY_MS) return;
    reportTo(level, untold > 1 ? `${message} (${untold} times since the last such line)` : message);
    lastReport = t;
    untold = 0;
  }

  function answered(m: FromCheckpointer): void {
    if ('closed' in m) return;
    if ('error' in m) {
      s.failures++;
      pausedUntil = Date.now() + STOPPED_PAUSE_MS;
      if (m.code?.startsWith('SQLITE_IOERR')) {
        const err = new Error(
          `checkpointing ${file} failed (${m.code}: ${m.error}): the WAL's sync may have failed, so no further commit is acknowledged; restart the node`,
        );
        refuse?.(err);
        tell('error', err.message, true);
      } else {
        tell('warn', `SQLite checkpoint failed (${m.error}): the WAL is checkpointed on the event loop at ${limit} pages meanwhile`, true);
      }
      return;
    }
    s.asked++;
    s.threadMs += m.ms;
    const restarted = m.log < lastEnd;
    if (restarted) s.restarts++;
    const copied = m.end - m.left;
    if (copied > (restarted ? 0 : lastCopied)) s.checkpoints++;
    // The WAL starts over only once every frame in it is copied. Started over although this thread
    // left frames uncopied at its last answer: the main connection copied them, on the event loop
    // (its checkpoint at `limit` pages, between two asks); or the WAL is at the limit now.
    const fellBack = (restarted && lastLeft > 0) || m.log >= limit;
    if (fellBack) {
      s.fallbacks++;
      tell('warn', `SQLite checkpointer behind: the WAL reached ${limit} pages, so the event loop checkpointed it (wal_autocheckpoint)`);
    }
    // frames written since the last answer (at least: those before a restart are not known)
    const fresh = restarted ? m.log : m.log - lastEnd;
    lastEnd = m.end;
    lastCopied = copied;
    lastLeft = m.left;
    if (!holding && m.left > 0 && m.end >= HOLD_FROM_FRAMES) hold();
    // ask sooner when more than TARGET_FRAMES came, later when fewer (never later after a restart, or after falling back)
    const next = fresh > 0 ? interval * (TARGET_FRAMES / fresh) : interval * 2;
    interval = Math.round(Math.min(MAX_MS, Math.max(MIN_MS, fellBack ? interval / 2 : restarted ? Math.min(interval, next) : next)));
  }

  function hold(): void {
    let release!: () => void;
    const p = new Promise<void>((r) => (release = r));
    // cleared before any commit waiting on it goes on
    void p.then(() => (holding = undefined));
    holding = p;
    s.holds++;
    const timer = setTimeout(release, HOLD_MAX_MS);
    void ask().then(() => {
      clearTimeout(timer);
      release();
    });
  }

  function ask(): Promise<FromCheckpointer | undefined> {
    if (under) return under;
    const id = nextId++;
    const p = new Promise<FromCheckpointer | undefined>((resolve) => port.post({ id } satisfies ToCheckpointer, [[id, { resolve }]]));
    under = p.then((m) => {
      under = undefined;
      if (m) answered(m);
      return m;
    });
    return under;
  }

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        if (Date.now() < pausedUntil) return schedule();
        void ask().then(schedule);
      },
      Math.max(interval, pausedUntil - Date.now()),
    );
    // an idle node's checkpoints do not keep it running
    timer.unref();
  }
  schedule();

  return {
    stats: () => ({ ...s }),
    held: () => holding,
    report(to) {
      reportTo = to;
    },
    get thread() {
      return port.thread;
    },
    async checkpoint() {
      // one asked before may have begun before the caller's last commit
      while (under) await under;
      return closed ? undefined : ask();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      await under;
      await port.ask<FromCheckpointer>({ close: true }, (m) => 'closed' in m, CLOSE_TIMEOUT_MS);
      await port.terminate();
    },
  };
}
