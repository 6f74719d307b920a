// sqlite-rows.ts: the one "N rows a statement, the rest one by one" insert of the events,
// deliveries and access log on SQLite. Against real SQLite, at the counts where the runs and the
// single rows meet: every column of every row must land in its own place, in order, and each
// connection's rows in its own database.
import { afterEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { rowsInsert, type Prepares } from '../../../src/adapters/sql/sqlite-rows.js';

const N = 4;

interface Row {
  name: string;
  n: number;
  note: string | null;
  weight: number;
}

// every column differs from row to row and from the other columns, so a value bound in another
// row's or another column's place shows; `tag` is the batch's (context), `kind` a constant
const insert = rowsInsert<readonly Row[], string>({
  table: 't',
  columns: ['name', 'kind', 'n', 'note', 'tag', 'weight'],
  constants: { kind: "'k'" },
  rows: N,
  write(values, p, rows, i, tag) {
    const r = rows[i];
    values[p] = r.name;
    values[p + 1] = r.n;
    values[p + 2] = r.note;
    values[p + 3] = tag;
    values[p + 4] = r.weight;
  },
});

const rowsOf = (count: number, prefix: string): Row[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}`, n: 1000 + i, note: i % 3 === 0 ? null : `note ${prefix}${i}`, weight: i + 0.25 }));

/** a database with the table, and the SQL texts it was asked to prepare */
function database(): { db: BetterSqlite3.Database; conn: Prepares; prepared: string[] } {
  const db = new BetterSqlite3(':memory:');
  db.exec(
    'create table t (id integer primary key, name text not null, kind text not null, n integer not null, note text, tag text not null, weight real not null)',
  );
  const prepared: string[] = [];
  const conn: Prepares = {
    prepare(sql) {
      prepared.push(sql);
      return db.prepare(sql);
    },
  };
  return { db, conn, prepared };
}

describe('rowsInsert (SQLite, N rows a statement, the rest one by one)', () => {
  const open: BetterSqlite3.Database[] = [];
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
  });

  it('builds one statement of a row and one of N, constants written in, not bound', () => {
    expect(insert.width).toBe(5);
    expect(insert.one).toBe("insert into t (name, kind, n, note, tag, weight) values (?, 'k', ?, ?, ?, ?)");
    expect(insert.many).toBe(`insert into t (name, kind, n, note, tag, weight) values ${Array(N).fill("(?, 'k', ?, ?, ?, ?)").join(', ')}`);
  });

  for (const count of [0, 1, N - 1, N, N + 1, 2 * N + 3]) {
    it(`writes ${count} rows, every column in its place and in order`, () => {
      const { db, conn, prepared } = database();
      open.push(db);
      const rows = rowsOf(count, `c${count}-`);
      db.transaction(() => insert.run(conn, rows, count, `batch ${count}`))();
      expect(db.prepare('select name, kind, n, note, tag, weight from t order by id').all()).toEqual(
        rows.map((r) => ({ name: r.name, kind: 'k', n: r.n, note: r.note, tag: `batch ${count}`, weight: r.weight })),
      );
      // the runs of N where they fit, one by one for the rest: a statement is prepared only when used
      const expected: string[] = [];
      if (count >= N) expected.push(insert.many);
      if (count % N > 0) expected.push(insert.one);
      expect(prepared).toEqual(expected);
    });
  }

  it('writes the first `count` rows of the source only', () => {
    const { db, conn } = database();
    open.push(db);
    const rows = rowsOf(2 * N + 3, 'f');
    insert.run(conn, rows, N + 1, 'part');
    expect(db.prepare('select name from t order by id').pluck().all()).toEqual(rows.slice(0, N + 1).map((r) => r.name));
  });

  it("prepares once per connection, and writes each connection's rows in its own database", () => {
    const a = database();
    const b = database();
    open.push(a.db, b.db);
    insert.run(a.conn, rowsOf(N + 1, 'a1-'), N + 1, 'a');
    insert.run(a.conn, rowsOf(N + 1, 'a2-'), N + 1, 'a');
    expect(a.prepared).toEqual([insert.many, insert.one]);
    insert.run(b.conn, rowsOf(N + 1, 'b-'), N + 1, 'b');
    expect(b.prepared).toEqual([insert.many, insert.one]);
    insert.run(a.conn, rowsOf(1, 'a3-'), 1, 'a');
    const names = (db: BetterSqlite3.Database) => db.prepare('select name from t order by id').pluck().all();
    expect(names(a.db)).toEqual([...rowsOf(N + 1, 'a1-'), ...rowsOf(N + 1, 'a2-'), ...rowsOf(1, 'a3-')].map((r) => r.name));
    expect(names(b.db)).toEqual(rowsOf(N + 1, 'b-').map((r) => r.name));
  });

  it('leaves nothing of a batch whose row SQLite refuses, inside the caller’s transaction', () => {
    const { db, conn } = database();
    open.push(db);
    const rows = rowsOf(2 * N + 3, 'r');
    // a NOT NULL column bound null in the last single row
    (rows[2 * N + 2] as { name: string | null }).name = null;
    expect(() => db.transaction(() => insert.run(conn, rows, rows.length, 'x'))()).toThrow(/NOT NULL/);
    expect(db.prepare('select count(*) from t').pluck().get()).toBe(0);
  });

  it('binds as many values a statement as SQLite takes (32766), each in its place', () => {
    const db = new BetterSqlite3(':memory:');
    open.push(db);
    db.exec('create table w (a integer not null, b text not null)');
    const most = rowsInsert<number, undefined>({
      table: 'w',
      columns: ['a', 'b'],
      rows: 16383,
      write(values, p, _, i) {
        values[p] = i;
        values[p + 1] = `b${i}`;
      },
    });
    const count = 2 * 16383 + 1;
    db.transaction(() => most.run(db, 0, count, undefined))();
    const rows = db.prepare('select a, b from w order by rowid').all() as { a: number; b: string }[];
    expect(rows.length).toBe(count);
    expect(rows.every((r, i) => r.a === i && r.b === `b${i}`)).toBe(true);
  });

  it('refuses a constant that is no column, and more rows a statement than SQLite binds', () => {
    const write = () => {};
    expect(() => rowsInsert({ table: 't', columns: ['a'], constants: { b: '0' }, rows: 2, write })).toThrow(/constant b is no column/);
    expect(() => rowsInsert({ table: 't', columns: ['a', 'b'], rows: 16384, write })).toThrow(/16384 rows a statement/);
    expect(() => rowsInsert({ table: 't', columns: ['a', 'b'], rows: 0, write })).toThrow(/0 rows a statement/);
    expect(rowsInsert({ table: 't', columns: ['a', 'b'], rows: 16383, write }).width).toBe(2);
  });
});
