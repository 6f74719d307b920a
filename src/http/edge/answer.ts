// A route's answer inside the edge: the body limit, its op() admission, then its one handler; an
// error becomes its answer through onError, as Hono's compose would make it. Without a promise
// when both admission and handler answered at once (the credential and the device in the read cache): each
// await on the commonest path, a GET of one device, costs (`npm run bench -- api`).
import type { Context, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../../domain/errors.js';
import type { Maybe } from '../../domain/maybe.js';
import { FIRMWARE_FILE_PATH, PART_UPLOAD_PATH } from '../body.js';
import type { ApiDeps, HttpEnv } from '../env.js';
import { errorResponse, onError } from '../errors.js';
import { requestHeader } from '../headers.js';
import type { Admit } from '../op.js';

type C = Context<HttpEnv>;
/** what runs inside the edge after admission: a route's handler, or the not-found answer */
export type Inner = (c: C, next: Next) => Maybe<Response | undefined>;

/**
 * The route's answer, unless its body is over the limit (docs/api.md#limits: 403 BODY_TOO_LARGE,
 * before the route reads it): then the refusal.
 */
export function bodyGuard(deps: Pick<ApiDeps, 'bodyLimitBytes'>): (c: C, admit: Admit, inner: Inner, next: Next) => Maybe<Response> {
  const limit = deps.bodyLimitBytes;
  const tooLarge = (c: C) => errorResponse(c, new AppError('BODY_TOO_LARGE', { limit }));
  const streamedLimit = bodyLimit({ maxSize: limit, onError: (c) => tooLarge(c as never) });
  return (c, admit, inner, next) => {
    const method = c.req.method;
    // GET and HEAD never carry a body under @hono/node-server: nothing to judge. Log file parts
    // (docs/api.md#limits: 5 MiB) are bounded by their own route, to one part's size, and firmware
    // files (docs/firmware.md#files) to limits.firmwareFileBytes.
    if (method === 'GET' || method === 'HEAD' || PART_UPLOAD_PATH.test(c.req.path) || FIRMWARE_FILE_PATH.test(c.req.path)) return answer(c, admit, inner, next);
    const length = requestHeader(c, 'content-length');
    // Only a streamed body (chunked, no Content-Length) needs counting while it is read; the
    // others are judged from their header. (Counting touches c.req.raw.body, which builds a full
    // Request: too dear for every request.)
    if (length === undefined || requestHeader(c, 'transfer-encoding')) {
      let res: Response | undefined;
      return streamedLimit(c, async () => {
        res = await answer(c, admit, inner, next);
      }).then((refused: unknown) => (refused instanceof Response ? refused : res!));
    }
    return Number(length) > limit ? tooLarge(c) : answer(c, admit, inner, next);
  };
}

export function answer(c: C, admit: Admit, inner: Inner, next: Next): Maybe<Response> {
  try {
    const admitting = admit(c);
    const answered = admitting ? admitting.then(() => inner(c, next)) : inner(c, next);
    return answered instanceof Promise
      ? answered.then(
          (res) => settled(c, res),
          (err: unknown) => failed(c, err),
        )
      : settled(c, answered);
  } catch (err) {
    return failed(c, err);
  }
}

/** what a handler answered, as compose takes it: c.res once set, else its return value */
function settled(c: C, res: Response | undefined): Response {
  if (c.finalized) return c.res;
  if (res) return res;
  return failed(c, new Error('Context is not finalized. Did you forget to return a Response object or `await next()`?'));
}

/** an error's answer (onError), as compose gives it */
function failed(c: C, err: unknown): Response {
  if (!(err instanceof Error)) throw err;
  c.error = err;
  return onError(err, c);
}
