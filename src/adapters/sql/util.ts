// Small helpers shared by the SQL repositories.

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

import { sql, type RawBuilder } from 'kysely';

/** `lower(col) like pattern escape '\'`: SQLite has no default LIKE escape character */
export function ilike(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** `col like pattern escape '\'` (case-sensitive on PostgreSQL, ASCII-insensitive on SQLite) */
export function like(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
