// A child process for the SQLite crash test (test/unit/ops/sqlite-crash.test.ts): opens the store
// on argv[2] as Hearth does and commits rows of about a page each, eight per transaction, as the
// event pipeline commits (synchronous=NORMAL, then the WAL's fsync off the event loop:
// docs/operations.md#durability). After each sync it prints `acked <last id> <checkpoints> <holds>`:
// every id up to that one is acknowledged, SQLite has checkpointed the WAL into the database file
// that many times (seen as the database file's size growing: rows are only ever added), and the
// checkpoint thread has held the connection that many times to start the WAL over
// (wal-checkpoint.ts). It writes until it is killed.
import { statSync } from 'node:fs';
import { createSqlStore } from '../../src/adapters/sql/store.js';

const file = process.argv[2];
const store = await createSqlStore({ url: file, readCache: false });
const db = store.sql.sqlite!;
db.exec('create table if not exists crash_rows (id integer primary key, b blob not null)');
const insert = db.prepare('insert into crash_rows (id, b) values (?, randomblob(3800))');
let id = 0;
let checkpoints = 0;
let size = statSync(file).size;
for (;;) {
  await store.transaction(
    async () => {
      for (let i = 0; i < 8; i++) insert.run(++id);
    },
    { syncLater: true },
  );
  await store.synced();
  const now = statSync(file).size;
  if (now > size) checkpoints++;
  size = now;
  process.stdout.write(`acked ${id} ${checkpoints} ${store.sql.checkpoints!.figures().holds}\n`);
}
