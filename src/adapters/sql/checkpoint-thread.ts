// The body of the checkpoint thread (checkpointer.ts): its own SQLite connection to the main
// database file, copying the WAL into it ahead of SQLite's automatic checkpoint, which runs on the
// event loop inside the commit that takes the WAL past WAL_CHECKPOINT_PAGES (connect.ts).
//
// Every TICK_MS it reads how far the WAL has been copied from the WAL index (the `-shm` file:
// SQLite's documented wal-index header, in the machine's byte order: mxFrame, the frames in the
// WAL, at byte 16; nBackfill, the frames already copied, at byte 96), and runs a PASSIVE
// checkpoint when BEHIND_PAGES frames wait, or any once the WAL nears the automatic checkpoint's
// size. PASSIVE never waits for a writer nor holds one up: the event loop's commits go on
// meanwhile. So when the event loop's own checkpoint comes, the frames are nearly all copied and
// the database file synced: it copies the few written since and syncs them, and the next commit
// starts the WAL over as before. Reading the index without its locks can see a header being
// written; it is only a hint of when to checkpoint, and SQLite's checkpoint takes its locks.
// The connection is synchronous=FULL: the checkpoint syncs the WAL before it copies frames into
// the database file, and the database file before the WAL may start over (wal-sync.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointerData, FromCheckpointer, ToCheckpointer } from './checkpointer.js';

const port = parentPort!;
const { file, autoPages } = workerData as CheckpointerData;
/** how often the WAL index is read: a read of 100 bytes */
const TICK_MS = 20;
/** a checkpoint when this many frames wait to be copied... */
const BEHIND_PAGES = Math.max(1, Math.floor(autoPages / 2));
/** ...or any, once the WAL holds this many (the event loop's checkpoint comes at autoPages) */
const NEAR_PAGES = Math.max(1, Math.floor((autoPages * 7) / 8));

const db = new BetterSqlite3(file);
db.pragma('synchronous = FULL');
// a PASSIVE checkpoint does not wait for locks; busy only covers opening the file
db.pragma('busy_timeout = 5000');
const header = Buffer.alloc(100);
const little = endianness() === 'LE';
let shm: number | undefined;
let checkpoints = 0;

function tick(): void {
  try {
    // the index exists once the WAL does (the main connection made it)
    shm ??= openSync(`${file}-shm`, 'r');
    if (readSync(shm, header, 0, 100, 0) < 100) return;
    const frames = little ? header.readUInt32LE(16) : header.readUInt32BE(16);
    const copied = little ? header.readUInt32LE(96) : header.readUInt32BE(96);
    const behind = frames - copied;
    if (behind <= 0 || (behind < BEHIND_PAGES && frames < NEAR_PAGES)) return;
    db.pragma('wal_checkpoint(PASSIVE)');
    checkpoints++;
  } catch {
    // the next tick tries again; the event loop's own checkpoint stays as it was meanwhile
  }
}

const timer = setInterval(tick, TICK_MS);

port.on('message', (msg: ToCheckpointer) => {
  if ('close' in msg) {
    clearInterval(timer);
    if (shm !== undefined) closeSync(shm);
    db.close();
    port.postMessage({ closed: true, checkpoints } satisfies FromCheckpointer);
    port.close();
  }
});
port.postMessage({ started: true } satisfies FromCheckpointer);
