// Small helpers shared by the SQL repositories.
import {
  sql,
  type AnyColumn,
  type DeleteResult,
  type InsertQueryBuilder,
  type InsertResult,
  type RawBuilder,
  type SelectQueryBuilder,
  type UpdateResult,
} from 'kysely';
import type { Page, Paged } from '../../ports/store.js';

/** count(*) comes back as number (SQLite) or string (PostgreSQL bigint) */
export function countOf(row: { n: unknown } | undefined): number {
  return row ? Number(row.n) : 0;
}

/** a case-insensitive substring pattern for `lower(col) like ? escape '\'` */
export function likePattern(s: string): string {
  return `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** a prefix pattern for `col like ? escape '\'` */
export function prefixPattern(s: string): string {
  return `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** a nullable JSON column's text: null (or absent) stays null */
export const toJson = (x: unknown): string | null => (x === null || x === undefined ? null : JSON.stringify(x));

/** a nullable JSON column's value */
export const fromJson = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

/** `lower(col) like pattern escape '\'`: SQLite has no default LIKE escape character */
export function ilike(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** `col like pattern escape '\'` (case-sensitive on PostgreSQL, ASCII-insensitive on SQLite) */
export function like(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}

/** `select count(*)` of the rows `filtered` names (no columns selected yet) */
export async function countRows<DB, TB extends keyof DB>(filtered: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  return countOf((await filtered.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst()) as { n: unknown } | undefined);
}

/**
 * One page of a listing: `filtered` names the rows (no columns selected yet); `ordered` selects
 * and orders them. The total counts every row `filtered` names, then the page is cut from the
 * ordered rows, and `view` maps each row.
 */
export async function pageOf<DB, TB extends keyof DB, R, T>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Page,
  ordered: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, R>,
  view: (row: R) => T,
): Promise<Paged<T>> {
  const total = await countRows(filtered);
  const rows = await ordered(filtered).offset(page.skip).limit(page.limit).execute();
  return { total, items: rows.map(view) };
}

/**
 * One conditional UPDATE (a claim, a lease, a move from a known state): true when it changed a
 * row, so of any number of nodes racing for it exactly one goes on.
 */
export async function changedRow(update: { executeTakeFirst(): Promise<UpdateResult> }): Promise<boolean> {
  return Number((await update.executeTakeFirst()).numUpdatedRows) > 0;
}

/** the INSERT unless a row holds its `key` already (ON CONFLICT (key) DO NOTHING): true when it inserted the row */
export async function insertedRow<DB, TB extends keyof DB>(
  insert: InsertQueryBuilder<DB, TB, InsertResult>,
  key: readonly AnyColumn<DB, TB>[],
): Promise<boolean> {
  const r = await insert.onConflict((oc) => oc.columns(key).doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** how many rows a DELETE removed */
export async function deletedCount(del: { executeTakeFirst(): Promise<DeleteResult> }): Promise<number> {
  return Number((await del.executeTakeFirst()).numDeletedRows);
}

/** true when a DELETE removed a row (the row was there) */
export async function deletedRow(del: { executeTakeFirst(): Promise<DeleteResult> }): Promise<boolean> {
  return (await deletedCount(del)) > 0;
}

/** every row of a query, each through `view` */
export async function rowsOf<R, T>(query: { execute(): Promise<R[]> }, view: (row: R) => T): Promise<T[]> {
  return (await query.execute()).map(view);
}

/** the first row of a query, through `view`; undefined when there is none */
export async function firstOf<R, T>(query: { executeTakeFirst(): Promise<R | undefined> }, view: (row: R) => T): Promise<T | undefined> {
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : view(row);
}
