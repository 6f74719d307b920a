// What the route handlers share: reading the path's ids, the caller and project checks that come
// first, the handler of a plain device write, the statuses of our own operations. Path parameters
// that name projects, homes, users and devices are positive integers (docs/api.md#conventions): a
// segment that is not one names nothing, so it is 404 of that kind (e.g. DEVICE_NOT_FOUND), the
// same answer as for an id that does not exist.
import type { Context } from 'hono';
import { requireCaller } from '../domain/auth/access.js';
import type { Caller } from '../domain/caller.js';
import type { Body, DeviceRef, VerbArgs } from '../domain/deps.js';
import type { Reason } from '../domain/errors.js';
import { idOrNotFound } from '../domain/id.js';
import { parseProjectId } from '../domain/module/access.js';
import type { WebhookChecks } from '../domain/module/checks.js';
import { webhookChecksOf } from '../domain/webhook/checks.js';
import type { Page } from '../ports/store.js';
import type { ApiDeps, HttpEnv } from './env.js';
import { readBody } from './body.js';
import { listResponse } from './paging.js';
import { noContent } from './no-content.js';

export function pathId(c: Context, name: string, reason: Reason): number {
  return idOrNotFound(c.req.param(name), reason, name);
}

/** the ids the registry's paths name, one reader each */
export const deviceIdIn = (c: Context) => pathId(c, 'deviceId', 'DEVICE_NOT_FOUND');
export const homeIdIn = (c: Context) => pathId(c, 'homeId', 'HOME_NOT_FOUND');
export const userIdIn = (c: Context) => pathId(c, 'userId', 'USER_NOT_FOUND');
export const projectIdIn = (c: Context) => pathId(c, 'projectId', 'PROJECT_NOT_FOUND');

/** a verb's deps and caller, the caller checked first: 401 before anything about the request */
export function signedIn(c: Context<HttpEnv>): { deps: ApiDeps; caller: Caller } {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller };
}

/** signedIn(), and the project the path names (`/:projectId/...`) */
export function projectScope(c: Context<HttpEnv>): { deps: ApiDeps; caller: Caller; projectId: number } {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller, projectId: parseProjectId(c.req.param('projectId') ?? '') };
}

/**
 * The handler of a device's write that answers nothing: the verb on the device the path names,
 * with the request body, then 204. Built once per route; a hot route writes its own (a call
 * through this shared closure is not inlined).
 */
export function deviceWrite(verb: (args: VerbArgs<ApiDeps, DeviceRef & Body>) => Promise<unknown>): (c: Context<HttpEnv>) => Promise<Response> {
  return async (c) => {
    await verb({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), body: await readBody(c) } });
    return noContent(c);
  };
}

/** the deps of a verb that saves webhook targets or templates: with the deployment's checks of them */
export function withWebhookChecks(deps: ApiDeps): ApiDeps & { checks: WebhookChecks } {
  return { ...deps, checks: webhookChecksOf(deps) };
}

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
