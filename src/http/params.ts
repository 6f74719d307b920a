// Small helpers of the registry routes. Path parameters that name projects, homes, users and
// devices are positive integers (docs/api.md#conventions): a segment that is not one names nothing, so it is
// 404 of that kind (e.g. DEVICE_NOT_FOUND), the same answer as for an id that does not exist.
import type { Context } from 'hono';
import type { Reason } from '../domain/errors.js';
import { idOrNotFound } from '../domain/id.js';
import type { Page } from '../ports/store.js';
import type { HttpEnv } from './env.js';
import { listResponse } from './paging.js';

export function pathId(c: Context, name: string, reason: Reason): number {
  return idOrNotFound(c.req.param(name), reason, name);
}

/** what every domain verb gets from the request */
export const actor = (c: Context<HttpEnv>) => ({ deps: c.get('deps'), caller: c.get('caller') });

/** a whole (small) list answered one page at a time, with the range header */
export function sliceResponse<T>(c: Context, page: Page, all: T[]): Response {
  return listResponse(c, page, { items: all.slice(page.skip, page.skip + page.limit), total: all.length });
}

/** the error statuses of our own registry operations (docs/api.md#errors), for op() and /openapi.json */
export const STATUSES = {
  read: [401, 403, 404, 429, 500, 503],
  list: [401, 403, 429, 500, 503],
  inUse: [401, 403, 404, 409, 429, 500, 503],
} as const;
