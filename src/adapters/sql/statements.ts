// The one place where SQL becomes a prepared statement and stays one.
//
// better-sqlite3 parses and plans SQL in prepare(), and Kysely's SQLite driver prepares every
// query it runs: on a GET that resolves a key and loads a device that was half the request's CPU
// (`npm run bench -- api`). Kysely emits the same text for the same query shape (values are bound
// parameters), and the hot statements of sqlite-raw.ts have few distinct texts, so one cache per database
// serves both: Kysely's driver (kyselyDatabase) and the raw statements (SqliteConn.prepare).
// Bounded, least recently used out: SQL whose text varies with its input (IN lists, multi-row
// inserts, a claim's LIMIT) must not grow the cache without end.
//
// Above the driver, precompiled() skips Kysely's own per-call work (building the query tree,
// the camelCase transform, compiling to SQL) for lookups whose shape never changes, on both
// dialects.
import type BetterSqlite3 from 'better-sqlite3';
import { CamelCasePlugin, type Compilable, type CompiledQuery, type Kysely, type SqliteDatabase } from 'kysely';

export interface StatementCache {
  /** the statement for this SQL text, prepared on its first use */
  prepare(sql: string): BetterSqlite3.Statement;
  readonly size: number;
}

/** the statements of one database; it holds at most `max` of them */
export function statementCache(database: BetterSqlite3.Database, max = 500): StatementCache {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    get size() {
      return cache.size;
    },
    prepare(sql) {
      let st = cache.get(sql);
      if (st) {
        // most recently used last: the first entry is the one to evict
        cache.delete(sql);
      } else {
        st = database.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, st);
      return st;
    },
  };
}

/** the database as Kysely's SqliteDialect sees it: every query it runs takes its statement from `statements` */
export function kyselyDatabase(database: BetterSqlite3.Database, statements: StatementCache): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare: (sql: string) => statements.prepare(sql),
  };
}

/** what a connection's `now` answers when it is not free this moment (sqlite-raw.ts) */
export const NOT_NOW: unique symbol = Symbol('not now');

/** a SQLite connection that may run a statement at once (sqlite-raw.ts's RawSqlite) */
export interface RunsNow {
  now<T>(fn: (conn: { prepare(sql: string): BetterSqlite3.Statement }) => T): T | typeof NOT_NOW;
}

/**
 * A lookup compiled once, on first use, with stand-in values, then run with the real parameters
 * in the same order. Rows still go through the plugins (camelCase mapping) on the way out.
 * On SQLite (`raw`), a read whose connection is free runs at once on its prepared statement,
 * without Kysely's connection mutex, executor and result plugin (a device sign-in makes four such
 * lookups: with Kysely around them they were the largest part of what a connect costs beyond bare
 * Aedes, issue #25); its row's columns are renamed as the CamelCasePlugin renames them.
 * A LIMIT is no parameter here: on SQLite inline-limit.ts writes it into the text (a stand-in
 * limit would stay), so write it with `sql.lit`.
 */
export function precompiled<Row>(db: Kysely<any>, build: () => Compilable<Row>, raw?: RunsNow): (...parameters: unknown[]) => Promise<Row | undefined> {
  let compiled: CompiledQuery<Row> | undefined;
  // the parameters of the read under way: raw.now runs `read` synchronously, so one function
  // serves every call instead of a closure per lookup (a device sign-in makes four, issue #25)
  let current: readonly unknown[] = NO_PARAMETERS;
  // its statement, taken from the cache once: the cache's lookup and move to most recent are three
  // Map operations keyed by the SQL text, on each of a connect's reads (issue #25). A statement the
  // cache has let go stays valid while this holds it (better-sqlite3 finalizes it when collected)
  let st: BetterSqlite3.Statement | undefined;
  const read = (conn: { prepare(sql: string): BetterSqlite3.Statement }) => {
    st ??= conn.prepare(compiled!.sql);
    return st.reader ? (st.get(current) as Record<string, unknown> | undefined) : NOT_NOW;
  };
  return async (...parameters) => {
    compiled ??= build().compile();
    if (parameters.length !== compiled.parameters.length)
      throw new Error(`precompiled query takes ${compiled.parameters.length} parameters, got ${parameters.length}`);
    if (raw) {
      current = parameters;
      let row: Record<string, unknown> | undefined | typeof NOT_NOW;
      try {
        row = raw.now(read);
      } finally {
        current = NO_PARAMETERS;
      }
      if (row !== NOT_NOW) return row && (camelRow(row) as Row);
    }
    const r = await db.executeQuery<Row>({ ...compiled, parameters });
    return r.rows[0];
  };
}

const NO_PARAMETERS: readonly unknown[] = [];

// the CamelCasePlugin's own renaming (connect.ts installs it with its defaults), remembered per column name
const plugin = new CamelCasePlugin() as unknown as { camelCase(s: string): string };
const camelNames = new Map<string, string>();

/** a row as the CamelCasePlugin gives it back (SQLite values are never objects it would map into) */
function camelRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in row) {
    let name = camelNames.get(k);
    if (name === undefined) camelNames.set(k, (name = plugin.camelCase(k)));
    out[name] = row[k];
  }
  return out;
}
