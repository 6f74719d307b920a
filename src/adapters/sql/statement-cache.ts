// better-sqlite3 parses and plans SQL in prepare(), and Kysely's SQLite driver prepares every
// query it runs: on a GET that resolves a key and loads a device that was half the request's CPU
// (`npm run bench -- api`). Kysely emits the same text for the same query shape (values are bound
// parameters), so a statement can be reused. Bounded: SQL whose text varies with its input (IN
// lists, multi-row inserts) must not grow the cache without end.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

export function withStatementCache(database: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string) {
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
