// The webhook pipeline's hot statements on SQLite without Kysely: building, transforming and
// compiling a query cost several times what SQLite takes to run it (`npm run bench -- webhooks`:
// 40-50 µs of Kysely per event against 7 µs for both inserts prepared once). better-sqlite3 is
// synchronous, so a statement run here must never land inside another caller's open transaction:
// it runs only while the connection is ours, either inside the transaction this store is bound
// to, or holding Kysely's connection (its single-connection mutex) for the duration.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { StatementCache } from './statements.js';

/** the connection while it is ours */
export interface SqliteConn {
  /** a statement prepared once per database (statements.ts): pass SQL whose text has few variants */
  prepare(sql: string): BetterSqlite3.Statement;
  /**
   * all of fn or none of it: its own transaction, or a savepoint inside the caller's. `immediate`
   * takes the write lock before the first read, for a read-then-write that another connection to
   * the file must not slip between.
   */
  atomically<T>(fn: () => T, immediate?: boolean): T;
}

export type RawSqlite = <T>(fn: (conn: SqliteConn) => T) => Promise<T>;

export function rawSqlite(db: Kysely<any>, database: BetterSqlite3.Database, statements: StatementCache, inTx: boolean): RawSqlite {
  const conn: SqliteConn = {
    prepare: (sql) => statements.prepare(sql),
    atomically(fn, immediate = false) {
      const tx = database.transaction(fn);
      return immediate && !database.inTransaction ? tx.immediate() : tx();
    },
  };
  // a store bound to a transaction already holds the connection (Kysely refuses connection() there)
  if (inTx) return async (fn) => fn(conn);
  return (fn) => db.connection().execute(async () => fn(conn));
}
