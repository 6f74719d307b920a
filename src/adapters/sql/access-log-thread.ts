// The body of the access-log writer thread (access-log-writer.ts): its own SQLite connection to
// the access-log file, writing each batch it is sent in one transaction and answering with the
// batch's id (and the error, if it failed).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { decode, insertAccessLogsSqlite, type FromWriter, type ToWriter, type WriterData } from './access-log-protocol.js';

const port = parentPort!;
const { file, cacheBytes } = workerData as WriterData;
const db = new BetterSqlite3(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
// the API's own connection also writes this file (retention, and inserts inside a transaction)
db.pragma('busy_timeout = 5000');
// as connect.ts cacheSizePragma (not imported: this thread loads only what it needs)
if (cacheBytes) db.pragma(`cache_size = ${-Math.max(64, Math.floor(cacheBytes / 1024))}`);
// db itself prepares: insertAccessLogsSqlite keeps the statements of the connection it last ran on
const insert = db.transaction((values: unknown[]) => insertAccessLogsSqlite.run(db, values, values.length / insertAccessLogsSqlite.width, undefined));

port.on('message', (msg: ToWriter) => {
  if ('close' in msg) {
    db.close();
    port.postMessage({ closed: true } satisfies FromWriter);
    port.close();
    return;
  }
  try {
    insert(decode(msg.batch));
    port.postMessage({ id: msg.id } satisfies FromWriter);
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies FromWriter);
  }
});
