// inline-limit.ts: on SQLite a whole-number LIMIT is written into the SQL text (a bound LIMIT makes
// SQLite re-prepare the statement at every run); PostgreSQL keeps it bound. The rows are the same.
// The stores' contract suites (test/contract/store.sqlite.test.ts) page through it on SQLite.
import { afterAll, describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect, sql } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { InlineLimitPlugin } from '../../../src/adapters/sql/inline-limit.js';

describe('InlineLimitPlugin', () => {
  const database = new BetterSqlite3(':memory:');
  database.exec('create table t (id integer primary key, v text); insert into t (v) values (1), (2), (3), (4)');
  const db = new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database }) }).withPlugin(new InlineLimitPlugin());
  afterAll(() => db.destroy());

  it('writes a whole-number limit into the text and keeps the other values bound', async () => {
    const q = db.selectFrom('t').select('id').where('id', '>', 1).orderBy('id').limit(2).offset(1).compile();
    expect(q.sql).toBe('select "id" from "t" where "id" > ? order by "id" limit 2 offset ?');
    expect(q.parameters).toEqual([1, 1]);
    expect(await db.selectFrom('t').select('id').where('id', '>', 1).orderBy('id').limit(2).offset(1).execute()).toEqual([{ id: 3 }, { id: 4 }]);
  });

  it('leaves a limit that is not a whole number (or not a value) to Kysely', () => {
    expect(db.selectFrom('t').select('id').limit(2.5).compile().sql).toBe('select "id" from "t" limit ?');
    expect(db.selectFrom('t').select('id').limit(-1).compile().sql).toBe('select "id" from "t" limit ?');
    expect(
      db
        .selectFrom('t')
        .select('id')
        .limit(sql<number>`1 + 1`)
        .compile().sql,
    ).toBe('select "id" from "t" limit 1 + 1');
  });
});
