// The body of the checkpointer thread (checkpointer.ts): its own SQLite connection to the main
// database file, copying the WAL into it (PRAGMA wal_checkpoint(PASSIVE)) whenever it is asked,
// and answering with what it found and did.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointerData, FromCheckpointer, ToCheckpointer } from './checkpoint-protocol.js';

// Catch-up passes after the first: the writer starts the WAL over only when a checkpoint has
// copied every frame in it, and the event pipeline commits every millisecond or two meanwhile,
// so a pass usually leaves the frames of the commits made during it. Each catch-up copies only
// those, and ends sooner than the one before; past a few, the next ask tries again.
const CATCH_UPS = 4;

const port = parentPort!;
const { file, synchronous } = workerData as CheckpointerData;
const db = new BetterSqlite3(file, { fileMustExist: true });
// the file is in WAL mode already (the main connection made it so); this connection only reads
// and checkpoints. With FULL or NORMAL a checkpoint fsyncs the WAL before it copies a frame and
// the database file before the WAL may start over, as the main connection's own did.
db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
db.pragma('wal_autocheckpoint = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

interface Pass {
  busy: number;
  log: number;
  checkpointed: number;
}

port.on('message', (msg: ToCheckpointer) => {
  if ('close' in msg) {
    db.close();
    port.postMessage({ closed: true } satisfies FromCheckpointer);
    port.close();
    return;
  }
  const t0 = performance.now();
  try {
    const first = checkpoint.get() as Pass;
    let r = first;
    let passes = 1;
    while (!r.busy && r.log > r.checkpointed && passes <= CATCH_UPS) {
      const before = r.log - r.checkpointed;
      r = checkpoint.get() as Pass;
      passes++;
      if (r.log - r.checkpointed >= before) break;
    }
    port.postMessage({
      id: msg.id,
      log: first.log,
      end: r.log,
      left: Math.max(0, r.log - r.checkpointed),
      passes,
      busy: first.busy !== 0,
      ms: performance.now() - t0,
    } satisfies FromCheckpointer);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    port.postMessage({
      id: msg.id,
      error: err instanceof Error ? err.message : String(err),
      code: typeof code === 'string' ? code : undefined,
    } satisfies FromCheckpointer);
  }
});
