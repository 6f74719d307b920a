// A route's answer inside the edge: its op() admission, then its one handler; an error becomes
// its answer through onError, as Hono's compose would make it. Without a promise when both
// admission and handler answered at once (the credential and the device in the read cache): each
// await on the commonest path, a GET of one device, costs (`npm run bench -- api`).
import type { Context, Next } from 'hono';
import type { Maybe } from '../../domain/maybe.js';
import type { HttpEnv } from '../env.js';
import { onError } from '../errors.js';
import type { Admit } from '../op.js';

type C = Context<HttpEnv>;
/** what runs inside the edge after admission: a route's handler, or the not-found answer */
export type Inner = (c: C, next: Next) => Maybe<Response | undefined>;

export function answer(c: C, admit: Admit, inner: Inner, next: Next): Maybe<Response> {
  try {
    const admitting = admit(c);
    const answered = admitting ? admitting.then(() => inner(c, next)) : inner(c, next);
    return answered instanceof Promise ? answered.then((res) => settled(c, res), (err: unknown) => failed(c, err)) : settled(c, answered);
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
