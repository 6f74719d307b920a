// What the access-log writer (access-log-writer.ts) and its thread (access-log-thread.ts) say to
// each other, and the SQLite statements both the thread and the API's own connection run.
import type { AccessLogRow } from '../../ports/store.js';
import { rowsInsert } from './sqlite-rows.js';

/** values a row, in the insert's column order */
const WIDTH = 7;

// Rows a statement of the batched access-log insert (sqlite-rows.ts): 50 rows a run write a row for
// 1.3 µs instead of 2.2 µs one by one (better-sqlite3, this table and its index). 350 parameters.
const ACCESS_LOG_ROWS = 50;

/**
 * The access-log insert on SQLite, of a flat list of values (WIDTH a row: rowValues, decode). The
 * caller holds the transaction (the thread's, or the store's on the API's connection).
 */
export const insertAccessLogsSqlite = rowsInsert<readonly unknown[]>({
  table: 'access_logs',
  columns: ['project_id', 'client_ip', 'latency', 'method', 'path', 'status_code', 'timestamp'],
  rows: ACCESS_LOG_ROWS,
  write(values, p, flat, i) {
    const q = i * WIDTH;
    values[p] = flat[q];
    values[p + 1] = flat[q + 1];
    values[p + 2] = flat[q + 2];
    values[p + 3] = flat[q + 3];
    values[p + 4] = flat[q + 4];
    values[p + 5] = flat[q + 5];
    values[p + 6] = flat[q + 6];
  },
});

/** the rows' values, WIDTH a row in the insert's column order */
export function rowValues(rows: readonly AccessLogRow[]): unknown[] {
  const values: unknown[] = new Array(rows.length * WIDTH);
  let p = 0;
  for (const r of rows) {
    values[p++] = r.projectId;
    values[p++] = r.clientIp;
    values[p++] = r.latency;
    values[p++] = r.method;
    values[p++] = r.path;
    values[p++] = r.statusCode;
    values[p++] = r.timestamp;
  }
  return values;
}

export interface WriterData {
  /** the access-log database file */
  file: string;
  /** its page cache, bytes (connect.ts SqlOptions.cacheBytes); SQLite's build default when absent */
  cacheBytes?: number;
}

/** a batch (encode()d), or the end */
export type ToWriter = { id: number; batch: EncodedBatch } | { close: true };

/** a batch written (or why not), or the thread's connection closed */
export type FromWriter = { id: number; error?: string } | { closed: true };

/**
 * Rows as they cross to the thread: WIDTH numbers a row, in the insert's column order, the
 * text columns as indexes into `strings` (each distinct text once: client IPs, methods, paths
 * and timestamps repeat from row to row). The numbers' buffer is transferred, not copied; cloning
 * the rows instead cost about a microsecond a row on the API's event loop.
 */
export interface EncodedBatch {
  numbers: Float64Array<ArrayBuffer>;
  strings: string[];
}

export function encode(rows: readonly AccessLogRow[]): EncodedBatch {
  const numbers = new Float64Array(new ArrayBuffer(rows.length * WIDTH * 8));
  const strings: string[] = [];
  const index = new Map<string, number>();
  const at = (s: string): number => {
    let i = index.get(s);
    if (i === undefined) index.set(s, (i = strings.push(s) - 1));
    return i;
  };
  let p = 0;
  for (const r of rows) {
    numbers[p++] = r.projectId;
    numbers[p++] = at(r.clientIp);
    numbers[p++] = r.latency;
    numbers[p++] = at(r.method);
    numbers[p++] = at(r.path);
    numbers[p++] = r.statusCode;
    numbers[p++] = at(r.timestamp);
  }
  return { numbers, strings };
}

/** the values of the rows, in the statement's order (the thread's side of encode) */
export function decode({ numbers, strings }: EncodedBatch): unknown[] {
  const values: unknown[] = new Array(numbers.length);
  for (let p = 0; p < numbers.length; p += WIDTH) {
    values[p] = numbers[p];
    values[p + 1] = strings[numbers[p + 1]];
    values[p + 2] = numbers[p + 2];
    values[p + 3] = strings[numbers[p + 3]];
    values[p + 4] = strings[numbers[p + 4]];
    values[p + 5] = numbers[p + 5];
    values[p + 6] = strings[numbers[p + 6]];
  }
  return values;
}
