// The body of the checkpoint thread (checkpointer.ts): its own SQLite connection to the main file,
// copying the WAL back into it whenever asked. A PASSIVE checkpoint neither waits for nor blocks
// the connection that writes: it copies the frames no reader still needs, and that connection's
// next commit starts the WAL over once all of them are in the file.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface CheckpointData {
  file: string;
}
export type ToCheckpointer = { id: number } | { close: true };
export type FromCheckpointer = { id: number; error?: string } | { closed: true };

const port = parentPort!;
const { file } = workerData as CheckpointData;
const db = new BetterSqlite3(file);
db.pragma('busy_timeout = 5000');
// this connection never writes: only the file's own connection checkpoints when it commits
db.pragma('wal_autocheckpoint = 0');
const checkpoint = db.prepare('pragma main.wal_checkpoint(PASSIVE)');

port.on('message', (msg: ToCheckpointer) => {
  if ('close' in msg) {
    db.close();
    port.postMessage({ closed: true } satisfies FromCheckpointer);
    port.close();
    return;
  }
  try {
    checkpoint.run();
    port.postMessage({ id: msg.id } satisfies FromCheckpointer);
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies FromCheckpointer);
  }
});
