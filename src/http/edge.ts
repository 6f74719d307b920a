// The edge every request passes (request id, CORS, the body limit, metrics, the access log) and
// the routes folded under it. Each route is registered as ONE handler: the edge, the route's
// op() admission and its handler, composed once when the app is built. Hono then takes its
// single-handler path (no compose, no middleware array, one async frame per layer less), which a
// `use('*')` edge plus op() as a middleware of its own cost on every request (`npm run bench --
// api`). A request no route matches gets the edge from the not-found handler.
import type { Context, Handler, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AppError } from '../domain/errors.js';
import { NOBODY, callerProjectId } from '../domain/auth/caller.js';
import type { ApiDeps, HttpEnv } from './env.js';
import { errorResponse, onError } from './errors.js';
import { RANGE_HEADER } from './paging.js';
import { isoTime, loggablePath } from './access-log.js';
import { clientIp } from './client-ip.js';
import { requestHeader } from './headers.js';
import type { Admit, OpMeta, OpMiddleware } from './op.js';
import { PART_UPLOAD_PATH } from './routes/device-logger.js';
import { EdgeResponse } from './edge-response.js';

type C = Context<HttpEnv>;
/** what runs inside the edge: a route's admission (op()), then its handler; or the not-found answer */
type Inner = (c: C, next: Next) => Promise<Response | undefined> | Response | undefined;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// CORS (API.md §0): any origin, no credentials. Written here rather than hono/cors, which sets
// its headers through c.res before the handler runs; that placeholder response makes
// @hono/node-server rebuild every real response as a full Response object (a third of the
// throughput of a plain GET, measured by `npm run bench -- api`).
const CORS_EXPOSE = [RANGE_HEADER, 'X-Request-Id', 'Retry-After'].join(',');
const CORS_METHODS = 'GET,POST,PUT,PATCH,DELETE,OPTIONS';
const CORS_HEADERS = 'Authorization,Content-Type,X-Request-Id';
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': CORS_METHODS,
  'Access-Control-Allow-Headers': CORS_HEADERS,
  'Access-Control-Max-Age': '600',
};

/**
 * HEARTH_CORS_ORIGINS as a list (API.md §0): a listed Origin is echoed, any other gets no
 * Access-Control-Allow-Origin; every answer then varies by Origin. Undefined for `*`.
 */
function corsList(origins: readonly string[] | undefined): Set<string> | undefined {
  if (!origins || (origins.length === 1 && origins[0] === '*')) return undefined;
  return new Set(origins);
}

/** the preflight answer for a listed origin, or the refusal (no Allow-* headers) for another */
function listedPreflight(allow: string | undefined): Record<string, string> {
  return allow === undefined ? { Vary: 'Origin' } : { ...PREFLIGHT_HEADERS, 'Access-Control-Allow-Origin': allow, Vary: 'Origin' };
}

export interface Edge {
  /** a route's handlers (op() first) as the one handler the router holds; it carries op()'s meta */
  route(handlers: Handler<HttpEnv>[]): Handler<HttpEnv> & { meta: OpMeta };
  /** the app's not-found handler: the edge around `answer` when no route took the request */
  notFound(answer: (c: C) => Response): (c: C) => Response | Promise<Response>;
}

export function createEdge(deps: ApiDeps): Edge {
  const { metrics, accessLog, clock } = deps;
  const listed = corsList(deps.corsOrigins);
  const tooLarge = (c: C) => errorResponse(c, new AppError('BODY_TOO_LARGE', { limit: deps.bodyLimitBytes }));
  const streamedLimit = bodyLimit({ maxSize: deps.bodyLimitBytes, onError: (c) => tooLarge(c as never) });

  /** the route's answer, an error turned into its answer as compose would */
  async function answer(c: C, admit: Admit, inner: Inner, next: Next): Promise<Response> {
    try {
      const admitting = admit(c);
      if (admitting) await admitting;
      return settled(c, await inner(c, next));
    } catch (err) {
      return failed(c, err);
    }
  }

  /** a body over the limit is refused before the route reads it (its answer, else the route's) */
  async function guarded(c: C, admit: Admit, inner: Inner, next: Next): Promise<Response> {
    // Only a streamed body (chunked, no Content-Length) needs counting while it is read; the
    // others are judged from their header. (Counting touches c.req.raw.body, which builds a full
    // Request: too dear for every request.) Log file parts (API.md §13: 5 MiB) are bounded by
    // their own route, to one part's size.
    if (!PART_UPLOAD_PATH.test(c.req.path)) {
      const length = requestHeader(c, 'content-length');
      if (length === undefined || requestHeader(c, 'transfer-encoding')) {
        let res: Response | undefined;
        const refused: unknown = await streamedLimit(c, async () => {
          res = await answer(c, admit, inner, next);
        });
        return refused instanceof Response ? refused : res!;
      }
      if (Number(length) > deps.bodyLimitBytes) return tooLarge(c);
    }
    return answer(c, admit, inner, next);
  }

  async function edge(c: C, admit: Admit, inner: Inner, next: Next): Promise<Response> {
    const start = performance.now();
    const given = requestHeader(c, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('caller', NOBODY);
    const method = c.req.method;
    const preflight = method === 'OPTIONS' && !!requestHeader(c, 'access-control-request-method');
    // The headers every answer carries. The API's own server (main.ts) adds them as the head is
    // written (edge-response.ts); any other Node server gets them preset on its response, which
    // Node merges into the head the adapter writes. Elsewhere (app.request in tests) they are
    // prepared on the context, which merges them into whatever response the handler builds.
    // Either way before the answer exists: c.header() on a built response rebuilds it as a full
    // Response (a third of a GET).
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    // the Access-Control-Allow-Origin to send: `*` (the default, nothing to look up), the
    // request's origin when it is listed, or none
    let allow: string | undefined = '*';
    if (listed !== undefined) {
      const origin = requestHeader(c, 'origin');
      allow = origin !== undefined && listed.has(origin) ? origin : undefined;
    }
    const vary = listed !== undefined;
    if (outgoing instanceof EdgeResponse) {
      outgoing.edgeRequestId = requestId;
      if (!preflight && allow !== undefined) {
        outgoing.edgeExpose = CORS_EXPOSE;
        if (vary) outgoing.edgeOrigin = allow;
      }
      if (vary && !preflight) outgoing.edgeVary = true;
    } else if (outgoing) {
      outgoing.setHeader('x-request-id', requestId);
      if (!preflight) {
        if (allow !== undefined) {
          outgoing.setHeader('Access-Control-Allow-Origin', allow);
          outgoing.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE);
        }
        if (vary) outgoing.setHeader('Vary', 'Origin');
      }
    } else {
      c.header('x-request-id', requestId);
      if (!preflight) {
        if (allow !== undefined) {
          c.header('Access-Control-Allow-Origin', allow);
          c.header('Access-Control-Expose-Headers', CORS_EXPOSE);
        }
        if (vary) c.header('Vary', 'Origin', { append: true });
      }
    }
    let res: Response;
    if (preflight) res = c.body(null, 204, vary ? listedPreflight(allow) : PREFLIGHT_HEADERS);
    // GET and HEAD never carry a body under @hono/node-server; answer() written out here, one
    // async frame less on the commonest path
    else if (method === 'GET' || method === 'HEAD') {
      try {
        const admitting = admit(c);
        if (admitting) await admitting;
        // a handler that answered at once (a read from the cache) is not awaited
        const answered = inner(c, next);
        res = settled(c, answered instanceof Promise ? await answered : answered);
      } catch (err) {
        res = failed(c, err);
      }
    } else res = await guarded(c, admit, inner, next);
    if (!outgoing) {
      // a response the handler built itself did not get the prepared headers
      const headers = res.headers;
      if (!headers.has('x-request-id')) headers.set('x-request-id', requestId);
      if (!preflight && allow !== undefined && !headers.has('access-control-allow-origin')) {
        headers.set('Access-Control-Allow-Origin', allow);
        headers.set('Access-Control-Expose-Headers', CORS_EXPOSE);
      }
      if (!preflight && vary && !/\borigin\b/i.test(headers.get('vary') ?? '')) headers.append('Vary', 'Origin');
    }
    const latencyMs = performance.now() - start;
    const status = res.status;
    metrics.record(c.get('op')?.operationId ?? 'unmatched', method, status, latencyMs / 1000);
    // API.md §8: every authenticated request, under its project
    const caller = c.get('caller');
    const projectId = callerProjectId(caller);
    if (projectId !== undefined) {
      accessLog.record({
        projectId,
        clientIp: caller.ip ?? clientIp(c),
        latency: Math.round(latencyMs * 1e6),
        method,
        path: loggablePath(c.req.path),
        statusCode: status,
        timestamp: isoTime(clock.now()),
      });
    }
    return res;
  }

  return {
    route(handlers) {
      const [first, ...rest] = handlers as [OpMiddleware, ...MiddlewareHandler<HttpEnv>[]];
      if (typeof first?.admit !== 'function') throw new Error('every route starts with op() (its metadata, auth and rate limit)');
      const { admit, meta } = first;
      const inner: Inner = rest.length === 1 ? (rest[0] as Inner) : chain(rest);
      // When several routes match one request (overlapping patterns), Hono runs them in turn
      // through next(): the edge runs once, around the first.
      const folded: Handler<HttpEnv> = (c, next) => (c.get('requestId') === undefined ? edge(c, admit, inner, next) : within(c, admit, inner, next));
      return Object.assign(folded, { meta });
    },
    notFound(answerOf) {
      const inner: Inner = (c) => answerOf(c);
      // inside the edge already when a route called next() past the last handler
      return (c) => (c.get('requestId') === undefined ? edge(c, admitted, inner, noNext) : answerOf(c));
    },
  };
}

const noNext: Next = async () => {};

/** what a handler answered, as compose takes it: c.res once set, else its return value */
function settled(c: C, res: Response | undefined): Response {
  if (c.finalized) return c.res;
  if (res) return res;
  throw new Error('Context is not finalized. Did you forget to return a Response object or `await next()`?');
}

/** an error's answer (onError), as compose gives it */
function failed(c: C, err: unknown): Response {
  if (!(err instanceof Error)) throw err;
  c.error = err;
  return onError(err, c);
}

/** the not-found answer has no op() to admit by */
const admitted: Admit = () => undefined;

/** a route matched after another one (same request): its handlers, without a second edge */
async function within(c: C, admit: Admit, inner: Inner, next: Next): Promise<Response | undefined> {
  const admitting = admit(c);
  if (admitting) await admitting;
  const res = await inner(c, next);
  return c.finalized ? c.res : res;
}

/**
 * Handlers after op() when a route has more than one: run as Hono's compose runs them (each
 * one's error becomes its answer through onError, an answer returned becomes c.res).
 */
function chain(handlers: MiddlewareHandler<HttpEnv>[]): Inner {
  return async (c, next) => {
    const dispatch = async (i: number): Promise<void> => {
      const handler = i < handlers.length ? handlers[i] : i === handlers.length ? next : undefined;
      if (!handler) return;
      let res: unknown;
      let isError = false;
      try {
        res = await handler(c, () => dispatch(i + 1));
      } catch (err) {
        if (!(err instanceof Error)) throw err;
        c.error = err;
        res = onError(err, c);
        isError = true;
      }
      if (res instanceof Response && (!c.finalized || isError)) c.res = res;
    };
    await dispatch(0);
    return c.finalized ? c.res : undefined;
  };
}
