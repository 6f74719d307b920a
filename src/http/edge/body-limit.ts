// docs/api.md#limits: a body over the API's limit is refused (403 BODY_TOO_LARGE) before the
// route reads it.
import type { Context, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../../domain/errors.js';
import type { Maybe } from '../../domain/maybe.js';
import { PART_UPLOAD_PATH } from '../body.js';
import type { ApiDeps, HttpEnv } from '../env.js';
import { errorResponse } from '../errors.js';
import { requestHeader } from '../headers.js';
import type { Admit } from '../op.js';
import { answer, type Inner } from './answer.js';

type C = Context<HttpEnv>;

/** the route's answer (answer.ts), unless its body is over the limit: then the refusal */
export function bodyGuard(deps: Pick<ApiDeps, 'bodyLimitBytes'>): (c: C, admit: Admit, inner: Inner, next: Next) => Maybe<Response> {
  const limit = deps.bodyLimitBytes;
  const tooLarge = (c: C) => errorResponse(c, new AppError('BODY_TOO_LARGE', { limit }));
  const streamedLimit = bodyLimit({ maxSize: limit, onError: (c) => tooLarge(c as never) });
  return (c, admit, inner, next) => {
    const method = c.req.method;
    // GET and HEAD never carry a body under @hono/node-server: nothing to judge. Log file parts
    // (docs/api.md#limits: 5 MiB) are bounded by their own route, to one part's size.
    if (method === 'GET' || method === 'HEAD' || PART_UPLOAD_PATH.test(c.req.path)) return answer(c, admit, inner, next);
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
