// Report outputs (docs/concepts.md#reports `format`): CSV (RFC 4180: a header line, CRLF, fields quoted when
// they hold a comma, quote or line break) or JSON (an array of objects). Both are streamed as
// text chunks.
//
// CSV cells that are text starting with = + - @ or a tab/CR are prefixed with a single quote
// (OWASP "CSV injection"): device names and event data are written by devices and users, and a
// spreadsheet would otherwise run them as formulas. Numbers and booleans are written as they are.
import type { Cell, ReportTable } from './rows.js';

const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return String(v);
  const s = FORMULA.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export async function* csvOf(table: ReportTable): AsyncIterable<string> {
  yield table.columns.map(csvCell).join(',') + '\r\n';
  let buf = '';
  for await (const row of table.rows) {
    buf += table.columns.map((c) => csvCell(row[c])).join(',') + '\r\n';
    if (buf.length >= 65536) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

export async function* jsonOf(table: ReportTable): AsyncIterable<string> {
  let buf = '[';
  let first = true;
  for await (const row of table.rows) {
    const obj: Record<string, Cell> = {};
    for (const c of table.columns) obj[c] = row[c] ?? null;
    buf += (first ? '\n' : ',\n') + JSON.stringify(obj);
    first = false;
    if (buf.length >= 65536) {
      yield buf;
      buf = '';
    }
  }
  yield buf + (first ? ']' : '\n]') + '\n';
}

export function encode(format: 'csv' | 'json', table: ReportTable): AsyncIterable<string> {
  return format === 'csv' ? csvOf(table) : jsonOf(table);
}
