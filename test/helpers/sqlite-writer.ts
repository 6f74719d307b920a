// A child process for the SQLite crash tests (test/unit/ops/checkpointer.test.ts): opens the store
// on argv[2] as Hearth does (checkpointer thread included) and commits rows of about a page each,
// a few per transaction, as the event pipeline does (synchronous=NORMAL, then the WAL's fsync off
// the event loop). After each sync it prints `acked <last id> <checkpoints>`: every id up to that
// one is acknowledged, and the checkpointer thread has made that many checkpoints. It writes until
// it is killed.
import { createSqlStore } from '../../src/adapters/sql/store.js';

const store = await createSqlStore({ url: process.argv[2], readCache: false });
const db = store.sql.sqlite!;
db.exec('create table if not exists crash_rows (id integer primary key, b blob not null)');
const insert = db.prepare('insert into crash_rows (id, b) values (?, randomblob(3800))');
let id = 0;
for (;;) {
  await store.transaction(
    async () => {
      for (let i = 0; i < 8; i++) insert.run(++id);
    },
    { syncLater: true },
  );
  await store.synced();
  process.stdout.write(`acked ${id} ${store.sql.checkpointer!.stats().checkpoints}\n`);
  // the event loop turns between commits, as it does between the pipeline's: the checkpointer's asks are timers
  await new Promise((r) => setImmediate(r));
}
