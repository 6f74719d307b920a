// SQLite: a batch of rows written `rows` a statement run, the rest one by one. Running a
// statement costs about as much as writing its row (a better-sqlite3 call, its bindings and a
// step each): the events' insert wrote a row for about a fifth less in runs of 32 than one by one,
// the deliveries' for 33.0 thousand instructions in runs of 8 against 37.7, the access log's for
// 1.3 µs in runs of 50 against 2.2 (issue #26). SQLite inserts a VALUES list in order.
// The one place that builds those statements, takes them from the statement cache and binds them
// (logs.ts, deliveries.ts, access-log-protocol.ts). No Kysely here: the access-log thread loads it.
// The values go to run() as its arguments (spread), not as one array: better-sqlite3 reads an
// array's values one at a time through the V8 API (Object::Get and its property lookup), about 3.5
// thousand instructions a row of an event commit (50 events, 25 deliveries leased, 25 not): 38.7
// thousand a row spread against 41.2 for the three copies this replaced, which bound arrays in runs
// and arguments one by one, and 43.6 for this helper binding arrays (callgrind, 1,000 commits);
// the fastest of 100 alternating rounds 6 to 9% less CPU a row than the copies.
import type BetterSqlite3 from 'better-sqlite3';

/** where statements come from: a connection's statement cache (SqliteConn, statements.ts), or a database of its own */
export interface Prepares {
  prepare(sql: string): BetterSqlite3.Statement;
}

export interface RowsSpec<S, C> {
  table: string;
  /** the table's columns in the order `write` gives their values */
  columns: readonly string[];
  /** columns of the list that take the same SQL literal in every row, bound no value (`write` skips them) */
  constants?: Readonly<Record<string, string>>;
  /** rows a run of the multi-row statement */
  rows: number;
  /**
   * row `i` of `source`, its bound values (every column but the constants, in order) written into
   * values[at], values[at + 1], ...; `context`: what the whole batch shares. A function of the
   * module, not a closure per call: it runs once per row. Values are SQLite's (text, number,
   * bigint, Buffer, null), never an array or object: they are passed as the run's arguments.
   */
  write(values: unknown[], at: number, source: S, i: number, context: C): void;
}

export interface RowsInsert<S, C> {
  /** the single-row statement's text */
  readonly one: string;
  /** the multi-row statement's text */
  readonly many: string;
  /** values bound per row */
  readonly width: number;
  /** the first `count` rows of `source`; the caller holds the transaction */
  run(conn: Prepares, source: S, count: number, context: C): void;
}

// SQLite caps bound parameters per statement (32766 since 3.32)
const MAX_PARAMETERS = 32766;

export function rowsInsert<S, C = undefined>(spec: RowsSpec<S, C>): RowsInsert<S, C> {
  const { rows, write } = spec;
  const constants = spec.constants ?? {};
  for (const c of Object.keys(constants)) if (!spec.columns.includes(c)) throw new Error(`rowsInsert(${spec.table}): constant ${c} is no column`);
  const tuple = `(${spec.columns.map((c) => constants[c] ?? '?').join(', ')})`;
  const width = spec.columns.length - Object.keys(constants).length;
  if (!(Number.isInteger(rows) && rows >= 1 && rows * width <= MAX_PARAMETERS)) throw new Error(`rowsInsert(${spec.table}): ${rows} rows a statement`);
  const into = `insert into ${spec.table} (${spec.columns.join(', ')}) values `;
  const one = into + tuple;
  const many = into + Array(rows).fill(tuple).join(', ');
  // the statements of the connection last used, taken from its cache once: a store bound to a
  // transaction has a connection of its own (one per event commit), the access-log thread one for
  // good. A statement the cache has let go stays valid while this holds it, as precompiled's
  let from: Prepares | undefined;
  let oneSt: BetterSqlite3.Statement | undefined;
  let manySt: BetterSqlite3.Statement | undefined;
  return {
    one,
    many,
    width,
    run(conn, source, count, context) {
      if (conn !== from) {
        from = conn;
        oneSt = manySt = undefined;
      }
      let i = 0;
      if (count >= rows) {
        manySt ??= conn.prepare(many);
        // one array for every run of the batch (bound, not kept)
        const values: unknown[] = new Array(rows * width);
        for (; i + rows <= count; i += rows) {
          for (let j = 0; j < rows; j++) write(values, j * width, source, i + j, context);
          manySt.run(...values);
        }
      }
      if (i < count) {
        oneSt ??= conn.prepare(one);
        const values: unknown[] = new Array(width);
        for (; i < count; i++) {
          write(values, 0, source, i, context);
          oneSt.run(...values);
        }
      }
    },
  };
}
