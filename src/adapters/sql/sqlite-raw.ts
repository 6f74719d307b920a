// The webhook pipeline's hot statements on SQLite without Kysely: building, transforming and
// compiling a query cost several times what SQLite takes to run it (`npm run bench -- webhooks`:
// 40-50 µs of Kysely per event against 7 µs for both inserts prepared once). better-sqlite3 is
// synchronous, so a statement run here must never land inside another caller's open transaction:
// it runs only while the connection is ours, either inside the transaction this store is bound
// to, or holding Kysely's connection (its single-connection mutex) for the duration.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';

export type RawSqlite = <T>(fn: (db: BetterSqlite3.Database) => T) => Promise<T>;

export function rawSqlite(db: Kysely<any>, database: BetterSqlite3.Database, inTx: boolean): RawSqlite {
  // a store bound to a transaction already holds the connection (Kysely refuses connection() there)
  if (inTx) return async (fn) => fn(database);
  return (fn) => db.connection().execute(async () => fn(database));
}

const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

/** a statement prepared once per database (the SQL text is a constant of the caller) */
export function prepared(database: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(database);
  if (!cache) statements.set(database, (cache = new Map()));
  let st = cache.get(sql);
  if (!st) cache.set(sql, (st = database.prepare(sql)));
  return st;
}

/**
 * all of fn or none of it: its own transaction, or a savepoint inside the caller's. `immediate`
 * takes the write lock before the first read, for a read-then-write that another connection to
 * the file must not slip between.
 */
export function atomically<T>(database: BetterSqlite3.Database, fn: () => T, immediate = false): T {
  const tx = database.transaction(fn);
  return immediate && !database.inTransaction ? tx.immediate() : tx();
}
