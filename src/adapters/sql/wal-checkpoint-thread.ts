// The body of the checkpoint thread (wal-checkpoint.ts): its own SQLite connection to the
// database file, running SQLite's PASSIVE checkpoint each time it is asked and answering with the
// WAL's frames (or the error).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { FromCheckpointer, ToCheckpointer } from './wal-checkpoint.js';

const port = parentPort!;
const { file } = workerData as { file: string };
const db = new BetterSqlite3(file);
// the checkpoint syncs the WAL before it copies and the database file before the WAL may start
// over: SQLite's own order, at FULL as at NORMAL
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('PRAGMA main.wal_checkpoint(PASSIVE)');

port.on('message', (msg: ToCheckpointer) => {
  if ('close' in msg) {
    db.close();
    port.postMessage({ closed: true } satisfies FromCheckpointer);
    port.close();
    return;
  }
  try {
    const { busy, log } = checkpoint.get() as { busy: number; log: number };
    port.postMessage({ id: msg.id, busy: busy !== 0, log } satisfies FromCheckpointer);
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies FromCheckpointer);
  }
});
