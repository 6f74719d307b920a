// skip/limit on every list, and the range header (docs/api.md#conventions).
import type { Context } from 'hono';
import * as v from 'valibot';
import type { Page } from '../ports/store.js';
import { parseWith } from '../domain/validate.js';

const intString = (name: string) => v.optional(v.pipe(v.string(), v.regex(/^\d{1,9}$/, `${name} must be a non-negative integer`), v.transform(Number)));

export const PageQuery = v.object({ skip: intString('skip'), limit: intString('limit') });

export function pageOf(c: Context, limits: { listDefault: number; listMax: number }): Page {
  const q = parseWith(v.looseObject(PageQuery.entries), c.req.query());
  const limit = q.limit ?? limits.listDefault;
  if (limit < 1 || limit > limits.listMax)
    parseWith(
      v.custom(() => false, `limit must be 1 to ${limits.listMax}`),
      limit,
    );
  return { skip: q.skip ?? 0, limit };
}

export const RANGE_HEADER = 'vnd.tinkermode.range';

/** `total` null: not counted (docs/api.md#device-lists `total=false`), written `*` */
export function setRange(c: Context, page: Page, count: number, total: number | null): void {
  const of = total ?? '*';
  c.header(RANGE_HEADER, count === 0 ? `*/${total ?? 0}` : `${page.skip}-${page.skip + count - 1}/${of}`);
}

/** answer a page of items with the range header */
export function listResponse<T>(c: Context, page: Page, result: { items: T[]; total: number | null }): Response {
  setRange(c, page, result.items.length, result.total);
  return c.json(result.items);
}
