// SQLite's WAL checkpoints, mostly off the event loop (docs/operations.md#durability): a thread
// with its own connection (checkpoint-thread.ts) copies the WAL into the database file as it
// grows, so that the automatic checkpoint, which SQLite runs inside the commit that takes the WAL
// past its size (connect.ts, WAL_CHECKPOINT_PAGES) and so on the event loop, finds little left to
// copy and sync. That checkpoint held the event loop for the copy of about 16 MB and the fsync of
// the database file: 124 to 617 ms each at a load average of 37 to 48 (two-event commits into a
// 4,000 page WAL, issue #26), and every event that arrived meanwhile waited with it. The automatic
// checkpoint stays as it was: if the thread is slow or dies, it does the whole copy, as before.
import { startThread } from '../thread-port.js';

export interface CheckpointerData {
  /** the database file, in WAL mode */
  file: string;
  /** the connection's wal_autocheckpoint, in pages */
  autoPages: number;
}
export type ToCheckpointer = { start: true } | { close: true };
export type FromCheckpointer = { started: true } | { closed: true; checkpoints: number };

export interface Checkpointer {
  /** ends the thread (its checkpoint under way first) */
  close(): Promise<void>;
}

// the thread ends on its own once its connection is closed; this only guards against one that cannot
const CLOSE_TIMEOUT_MS = 10_000;

export function startCheckpointer(file: string, autoPages: number): Checkpointer {
  const port = startThread<ToCheckpointer, FromCheckpointer, true>({
    from: import.meta.url,
    module: 'checkpoint-thread',
    workerData: { file, autoPages } satisfies CheckpointerData,
    onMessage() {},
    // nothing waits on it: the event loop's checkpoint covers for a thread that died
    onLost() {},
  });
  // started by its first message; it never keeps the process alive
  port.post({ start: true });
  port.thread?.unref();
  return {
    async close() {
      await port.ask<FromCheckpointer>({ close: true }, (m) => m !== undefined && 'closed' in m, CLOSE_TIMEOUT_MS);
      await port.terminate();
    },
  };
}
