// Small helpers shared by the SQL repositories.
import { sql, type RawBuilder, type SelectQueryBuilder, type UpdateResult } from 'kysely';
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

/** `lower(col) like pattern escape '\'`: SQLite has no default LIKE escape character */
export function ilike(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** `col like pattern escape '\'` (case-sensitive on PostgreSQL, ASCII-insensitive on SQLite) */
export function like(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
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
  const total = countOf((await filtered.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst()) as { n: unknown } | undefined);
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
