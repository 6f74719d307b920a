// createSqlStore: the Store port over Kysely. One set of queries for SQLite and PostgreSQL.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from '../../ports/store.js';
import { openSql, type SqlHandle, type SqlOptions } from './connect.js';
import { registryRepos } from './registry.js';
import { deviceRepo } from './devices.js';
import { kvRepo } from './kv.js';
import { logRepos } from './logs.js';
import { moduleRepo } from './modules.js';
import { deliveryRepo } from './deliveries.js';
import { logRequestRepo } from './log-requests.js';
import { commandRepo } from './commands.js';
import { dataRecordRepo, dataSourceRepo } from './data-sources.js';
import { reportRepo } from './reports.js';
import { reportRunRepo } from './report-runs.js';
import { reportDataRepo } from './report-data.js';
import { retentionRepo } from './retention.js';
import { tsdbRepo } from './tsdb.js';
import { deviceCertificateRepo } from './device-certificates.js';
import { streamTicketRepo } from './stream-tickets.js';
import { firmwareFileRepo, rolloutRepo } from './rollouts.js';
import { statsRepo } from './stats.js';
import { inSqliteTransaction, rawSqlite, relaxed } from './sqlite-raw.js';
import { withReadCache } from './read-cache.js';
import { postgresChangeFeed, sqliteChangeFeed } from './change-feed.js';

type Db = Kysely<Database>;

function build(db: Db, handle: SqlHandle, inTx: boolean, whole = false): Store {
  // Operations that need several statements run in a transaction of their own, or in the
  // caller's when the store is already bound to one.
  const within = <T>(fn: (d: Db) => Promise<T>): Promise<T> => (inTx ? fn(db) : db.transaction().execute((trx) => fn(trx)));

  // SQLite: the webhook pipeline's hot statements skip Kysely (sqlite-raw.ts)
  const raw = handle.sqlite && handle.statements ? rawSqlite(db, handle.sqlite, handle.statements, inTx, whole) : undefined;
  const transaction = <T>(d: Db, fn: (tx: Store) => Promise<T>, whole = false) => d.transaction().execute((trx) => fn(build(trx, handle, true, whole)));
  const { walSync, statements, sqlite } = handle;
  const store: Store = {
    transaction(fn, how) {
      if (inTx) return fn(store);
      if (!how?.syncLater || !walSync || !statements || !sqlite) return transaction(db, fn, how?.whole);
      // docs/operations.md#durability: into the WAL without its fsync (wal-sync.ts). The connection is
      // held from the pragma to its undoing, so no other caller's commit is made with NORMAL.
      // BEGIN and COMMIT without Kysely's transaction() (sqlite-raw.ts); the store it hands fn is bound to the held connection
      return db
        .connection()
        .execute((conn) => relaxed(statements, () => inSqliteTransaction(sqlite, statements, () => fn(build(conn, handle, true, how.whole)))));
    },
    synced: () => (walSync ? walSync.sync() : Promise.resolve()),
    async ping() {
      // a failed WAL sync refuses every commit's acknowledgement until a restart (wal-sync.ts)
      const failed = walSync?.failure();
      if (failed) throw failed;
      await sql`select 1`.execute(db);
    },
    close: () => handle.close(),
    ...registryRepos(db, handle.dialect, raw),
    devices: deviceRepo(db, handle.dialect, raw),
    kv: kvRepo(db, within, raw),
    ...logRepos(db, raw, inTx ? undefined : handle.accessLogWriter),
    modules: moduleRepo(db),
    deliveries: deliveryRepo(db, handle.dialect, raw),
    logRequests: logRequestRepo(db),
    commands: commandRepo(db, handle.dialect, within, raw),
    dataSources: dataSourceRepo(db),
    dataRecords: dataRecordRepo(db),
    reports: reportRepo(db),
    reportRuns: reportRunRepo(db),
    reportData: reportDataRepo(db),
    retention: retentionRepo(db),
    tsdb: tsdbRepo(db, handle.dialect, raw),
    deviceCertificates: deviceCertificateRepo(db),
    streamTickets: streamTicketRepo(db),
    firmwareFiles: firmwareFileRepo(db, handle.dialect, within),
    rollouts: rolloutRepo(db, within),
    stats: statsRepo(db, raw),
  };
  return store;
}

export interface SqlStore extends Store {
  /** the underlying Kysely handle, for adapters that share the database (queue) */
  readonly sql: SqlHandle;
}

/** `readCache: false` leaves out the read cache of the auth and device lookups (read-cache.ts) */
export async function createSqlStore(opts: SqlOptions & { readCache?: boolean }): Promise<SqlStore> {
  const handle = await openSql(opts);
  const store = Object.assign(build(handle.db, handle, false), { sql: handle });
  if (opts.readCache === false) return store;
  return withReadCache(store, (sink) =>
    handle.sqlite ? sqliteChangeFeed(handle.sqlite, sink) : postgresChangeFeed({ url: opts.url, schema: opts.schema }, sink),
  );
}
