// WAL checkpoints of the main SQLite file off the event loop. SQLite checkpoints on the connection
// whose commit takes the WAL past wal_autocheckpoint pages (1,000 by default): the main
// connection, on the event loop, which then writes the pages back and fsyncs the file, several
// milliseconds a few times a second under a stream of events (`npm run bench -- webhooks` under
// strace: 33 checkpoints in a run, the file's fsync alone 4.5 ms at the median on a loaded
// machine), in the path of whatever waits on the loop. Here a thread with a connection of its own
// checkpoints (PASSIVE: neither side waits for the other) every CHECKPOINT_EVERY_MS after the
// main connection has written; the main connection's own checkpoint stays as a backstop, at
// BACKSTOP_PAGES, for a thread that falls behind or died. Not more often than that: a page written
// again and again (an index's root, a counter's row) is copied once per checkpoint, so a thread
// checkpointing every few frames would do more work than the 1,000-page rhythm it replaces.
import type BetterSqlite3 from 'better-sqlite3';
import { startThread } from '../thread-port.js';
import type { CheckpointData, FromCheckpointer, ToCheckpointer } from './checkpoint-thread.js';

const CHECKPOINT_EVERY_MS = 500;
/** the WAL's size (pages of 4 KiB) past which the main connection checkpoints itself */
export const BACKSTOP_PAGES = 10_000;
// the thread ends on its own once its connection is closed; this only guards against one that cannot
const CLOSE_TIMEOUT_MS = 10_000;

export interface Checkpointer {
  close(): Promise<void>;
}

export function startCheckpointer(database: BetterSqlite3.Database): Checkpointer {
  const changes = database.prepare('select total_changes() as n').pluck();
  let seen = -1;
  let nextId = 1;
  let inFlight = false;
  const port = startThread<ToCheckpointer, FromCheckpointer, true>({
    from: import.meta.url,
    module: 'checkpoint-thread',
    workerData: { file: database.name } satisfies CheckpointData,
    onMessage(m) {
      if ('closed' in m) return;
      // a failed checkpoint is tried again at the next turn; the backstop bounds the WAL meanwhile
      port.settle(m.id);
      inFlight = false;
    },
    onLost() {
      inFlight = false;
    },
  });
  database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const timer = setInterval(() => {
    if (inFlight) return;
    const n = changes.get() as number;
    if (n === seen) return;
    seen = n;
    inFlight = true;
    const id = nextId++;
    port.post({ id } satisfies ToCheckpointer, [[id, true]]);
  }, CHECKPOINT_EVERY_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await port.ask<FromCheckpointer>({ close: true }, (m) => m !== undefined && 'closed' in m, CLOSE_TIMEOUT_MS);
      await port.terminate();
    },
  };
}
