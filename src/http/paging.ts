// skip/limit on every list, and the range header (docs/api.md#conventions); the handler of the
// history lists (events, general logs, HTTP access logs).
import type { Context } from 'hono';
import * as v from 'valibot';
import type { Page } from '../ports/store.js';
import type { Scope } from '../domain/caller.js';
import type { VerbArgs } from '../domain/deps.js';
import { historyProject } from '../domain/log/query.js';
import { parseWith } from '../domain/validate.js';
import { parseQuery } from './body.js';
import type { ApiDeps, HttpEnv } from './env.js';

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

type HistoryVerb<Q, T> = (args: VerbArgs<ApiDeps, { query: Q; page: Page }>) => Promise<{ items: T[]; total: number | null }>;

/**
 * The handler of a history list (routes/events.ts, routes/logs.ts), built once per route: a
 * project key reads its own project's history, newest first. The credential first (who may not
 * read learns nothing about the query), then the query, then the page (an order its errors keep).
 */
export function historyList<S extends v.GenericSchema, T>(
  scope: Scope,
  query: S,
  list: HistoryVerb<v.InferOutput<S>, T>,
): (c: Context<HttpEnv>) => Promise<Response> {
  return async (c) => {
    const deps = c.get('deps');
    const caller = c.get('caller');
    historyProject(caller, undefined, scope);
    const q = parseQuery(c, query);
    const page = pageOf(c, deps.limits);
    return listResponse(c, page, await list({ deps, caller, input: { query: q, page } }));
  };
}
