// The webhook pipeline's hot statements on SQLite without Kysely: building, transforming and
// compiling a query cost several times what SQLite takes to run it (`npm run bench -- webhooks`:
// 40-50 µs of Kysely per event against 7 µs for both inserts prepared once). better-sqlite3 is
// synchronous, so a statement run here must never land inside another caller's open transaction:
// it runs only while the connection is ours, either inside the transaction this store is bound
// to, or holding Kysely's connection (its single-connection mutex) for the duration.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { NOT_NOW, type StatementCache } from './statements.js';

/** the connection while it is ours */
export interface SqliteConn {
  /** a statement prepared once per database (statements.ts): pass SQL whose text has few variants */
  prepare(sql: string): BetterSqlite3.Statement;
  /**
   * all of fn or none of it: its own transaction, or a savepoint inside the caller's. `immediate`
   * takes the write lock before the first read, for a read-then-write that another connection to
   * the file must not slip between. `relaxed`: see RELAXED.
   */
  atomically<T>(fn: () => T, how?: { immediate?: boolean; relaxed?: boolean }): T;
}

// RELAXED: bookkeeping that a power cut may undo but a crash of the process may not, because what
// it records is redone when it is missing: a delivery's lease (it lapses and the row is claimed
// again) and its outcome (the delivery is sent again, at least once as always). Its own
// transaction then commits with synchronous=NORMAL: into the WAL, without the fsync that FULL
// waits for and that blocks the event loop. The WAL is written in order, so the next durable
// commit (an event's, whose ack waits for its fsync) or checkpoint carries it to disk with it.
// Inside a caller's transaction it is that transaction's, durable as the caller's is.
const PRAGMA_NORMAL = 'PRAGMA main.synchronous = NORMAL';
const PRAGMA_FULL = 'PRAGMA main.synchronous = FULL';
// SQLite's code for FULL; whether a database syncs every commit is set once, when it is opened
const FULL = 2;
const syncsEveryCommit = new WeakMap<BetterSqlite3.Database, boolean>();

function fullSync(database: BetterSqlite3.Database): boolean {
  let full = syncsEveryCommit.get(database);
  if (full === undefined) syncsEveryCommit.set(database, (full = database.pragma('main.synchronous', { simple: true }) === FULL));
  return full;
}

/**
 * fn with the connection's commits made with synchronous=NORMAL, then FULL again; only for a
 * connection opened with FULL, outside any transaction (SQLite refuses the change inside one),
 * while the connection is ours. fn may be async: FULL comes back when it settles.
 */
export function relaxed<T>(statements: StatementCache, fn: () => T): T {
  statements.prepare(PRAGMA_NORMAL).run();
  let out: T;
  try {
    out = fn();
  } catch (err) {
    statements.prepare(PRAGMA_FULL).run();
    throw err;
  }
  if (!(out instanceof Promise)) {
    statements.prepare(PRAGMA_FULL).run();
    return out;
  }
  return out.finally(() => statements.prepare(PRAGMA_FULL).run()) as T;
}

/**
 * fn between BEGIN and COMMIT run as prepared statements, ROLLBACK when it throws (or COMMIT
 * does); only while the connection is ours (store.ts holds Kysely's connection for it), never
 * inside a transaction. fn may await: nothing else runs on the held connection meanwhile. Kysely's
 * transaction() runs the same statements through its driver's asynchronous query path, once per
 * group commit of the event pipeline (issue #26).
 */
export async function inSqliteTransaction<T>(database: BetterSqlite3.Database, statements: StatementCache, fn: () => Promise<T>): Promise<T> {
  statements.prepare('BEGIN').run();
  try {
    const out = await fn();
    statements.prepare('COMMIT').run();
    return out;
  } catch (err) {
    // a failed COMMIT (SQLITE_BUSY, a full disk) may leave the transaction open
    if (database.inTransaction) statements.prepare('ROLLBACK').run();
    throw err;
  }
}

export type RawSqlite = (<T>(fn: (conn: SqliteConn) => T) => Promise<T>) & {
  /**
   * fn at once, without waiting for Kysely's connection, when nobody else's transaction is open on
   * it (or this store is bound to the transaction that is): better-sqlite3 is synchronous, so
   * nothing else runs on the connection meanwhile; otherwise NOT_NOW (take the waiting way)
   */
  now<T>(fn: (conn: SqliteConn) => T): T | typeof NOT_NOW;
};

/**
 * One better-sqlite3 transaction function per database, whose body is the fn `atomically` runs
 * at the moment (nested calls put theirs in and take it out again): `database.transaction(fn)`
 * builds four wrapped functions and defines twenty properties on them, and a call per
 * `atomically` was an eighth of what a small outbox commit cost (issue #26; the event pipeline
 * makes two per commit). BEGIN or a SAVEPOINT, COMMIT or RELEASE, the rollbacks: better-sqlite3's own,
 * as before.
 */
interface Atomic {
  body: (() => unknown) | undefined;
  readonly tx: BetterSqlite3.Transaction<() => unknown>;
}
const atomics = new WeakMap<BetterSqlite3.Database, Atomic>();

function atomicOf(database: BetterSqlite3.Database): Atomic {
  let a = atomics.get(database);
  if (!a) {
    const holder: { body: (() => unknown) | undefined } = { body: undefined };
    a = Object.assign(holder, { tx: database.transaction(() => holder.body!()) });
    atomics.set(database, a);
  }
  return a;
}

/** fn in the database's transaction function (atomicOf): BEGIN (IMMEDIATE when asked) or a SAVEPOINT */
function inTransaction<T>(database: BetterSqlite3.Database, fn: () => T, immediate: boolean | undefined): T {
  const a = atomicOf(database);
  const outer = a.body;
  a.body = fn;
  try {
    return (immediate && !database.inTransaction ? a.tx.immediate() : a.tx()) as T;
  } finally {
    a.body = outer;
  }
}

/**
 * `whole`: the store is bound to a transaction that rolls back whole on any failure (Store.transaction's
 * `whole`): `atomically` inside it runs fn as it is, without a savepoint. A savepoint keeps the undo
 * pages of everything written since it began in a sub-journal, which past 64 KiB spills to a
 * temporary file: the event pipeline's multi-row inserts of about a hundred events cost 8.7 µs a
 * row inside one against 6.9 without (better-sqlite3 alone, alternating, issue #26).
 */
export function rawSqlite(db: Kysely<any>, database: BetterSqlite3.Database, statements: StatementCache, inTx: boolean, whole = false): RawSqlite {
  const conn: SqliteConn = {
    prepare: (sql) => statements.prepare(sql),
    atomically(fn, how) {
      if (whole && database.inTransaction) return fn();
      if (!how?.relaxed || database.inTransaction || !fullSync(database)) return inTransaction(database, fn, how?.immediate);
      return relaxed(statements, () => inTransaction(database, fn, how.immediate));
    },
  };
  // a store bound to a transaction already holds the connection (Kysely refuses connection() there)
  const now = <T>(fn: (conn: SqliteConn) => T): T | typeof NOT_NOW => (inTx || !database.inTransaction ? fn(conn) : NOT_NOW);
  if (inTx) return Object.assign(async <T>(fn: (conn: SqliteConn) => T) => fn(conn), { now });
  return Object.assign(<T>(fn: (conn: SqliteConn) => T) => db.connection().execute(async () => fn(conn)), { now });
}
