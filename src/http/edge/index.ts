// The edge every request passes (request id, CORS, the body limit, metrics, the access log) and
// the routes folded under it. Each route is registered as ONE handler: the edge, the route's
// op() admission and its handler, composed once when the app is built. Hono then takes its
// single-handler path (no compose, no middleware array, one async frame per layer less), which a
// `use('*')` edge plus op() as a middleware of its own cost on every request (`npm run bench --
// api`). A request no route matches gets the edge from the not-found handler. Every request takes
// the same path, whatever its method; an answer given at once (a read from the cache) is returned
// without a promise.
import type { Context, Handler, Next } from 'hono';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { NOBODY, callerProjectId } from '../../domain/caller.js';
import type { Maybe } from '../../domain/maybe.js';
import { isoTime, loggablePath } from '../access-log.js';
import { clientIp } from '../client-ip.js';
import type { ApiDeps, HttpEnv } from '../env.js';
import { requestHeader } from '../headers.js';
import type { Admit, OpMiddleware } from '../op.js';
import type { OpMeta } from '../op-meta.js';
import { answer, bodyGuard, type Inner } from './answer.js';
import { corsList, fillHeaders, preflightHeaders, presetHeaders, type EdgeHeaders } from './cors.js';

type C = Context<HttpEnv>;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export interface Edge {
  /** a route's two handlers (op(), then the handler) as the one handler the router holds; it carries op()'s meta */
  route(handlers: Handler<HttpEnv>[]): Handler<HttpEnv> & { meta: OpMeta };
  /** the app's not-found handler: the edge around `answer` when no route took the request */
  notFound(answer: (c: C) => Response): (c: C) => Maybe<Response>;
}

export function createEdge(deps: ApiDeps): Edge {
  const listed = corsList(deps.corsOrigins);
  const guarded = bodyGuard(deps);
  const record = recorder(deps);

  function edge(c: C, admit: Admit, inner: Inner, next: Next): Maybe<Response> {
    const start = performance.now();
    const given = requestHeader(c, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('caller', NOBODY);
    // `*` (the default, nothing to look up), the request's origin when it is listed, or none
    let allow: string | undefined = '*';
    if (listed !== undefined) {
      const origin = requestHeader(c, 'origin');
      allow = origin !== undefined && listed.has(origin) ? origin : undefined;
    }
    const preflight = c.req.method === 'OPTIONS' && !!requestHeader(c, 'access-control-request-method');
    const h: EdgeHeaders = { requestId, allow, vary: listed !== undefined, preflight, fill: false };
    presetHeaders(c, h);
    const res = preflight ? c.body(null, 204, preflightHeaders(h)) : guarded(c, admit, inner, next);
    // written out rather than after(): no closure for the answer given at once
    return res instanceof Promise ? res.then((r) => done(c, r, h, start)) : done(c, res, h, start);
  }

  function done(c: C, res: Response, h: EdgeHeaders, start: number): Response {
    if (h.fill) fillHeaders(res, h);
    record(c, res.status, performance.now() - start);
    return res;
  }

  return {
    route(handlers) {
      const [first, handler, ...more] = handlers as [OpMiddleware, Inner, ...unknown[]];
      if (typeof first?.admit !== 'function') throw new Error('every route starts with op() (its metadata, auth and rate limit)');
      if (typeof handler !== 'function' || more.length) throw new Error('a route is op() and one handler, inline after the path');
      const { admit, meta } = first;
      // When several routes match one request (overlapping patterns) and one hands over with
      // next(), Hono runs the next one: inside the edge already, it is answered without a second.
      const folded: Handler<HttpEnv> = (c, next) => (c.get('requestId') === undefined ? edge(c, admit, handler, next) : answer(c, admit, handler, next));
      return Object.assign(folded, { meta });
    },
    notFound(answerOf) {
      const inner: Inner = (c) => answerOf(c);
      // inside the edge already when a route called next() past the last handler
      return (c) => (c.get('requestId') === undefined ? edge(c, admitted, inner, noNext) : answerOf(c));
    },
  };
}

/**
 * what the edge records of every answer: its metrics, and (docs/operations.md#logs) the access
 * log line of every authenticated request, under its project
 */
function recorder(deps: Pick<ApiDeps, 'metrics' | 'accessLog' | 'clock'>): (c: Context<HttpEnv>, status: number, latencyMs: number) => void {
  const { metrics, accessLog, clock } = deps;
  return (c, status, latencyMs) => {
    const method = c.req.method;
    metrics.record(c.get('op')?.operationId ?? 'unmatched', method, status, latencyMs / 1000);
    const caller = c.get('caller');
    const projectId = callerProjectId(caller);
    if (projectId === undefined) return;
    accessLog.record({
      projectId,
      clientIp: caller.ip ?? clientIp(c),
      latency: Math.round(latencyMs * 1e6),
      method,
      path: loggablePath(c.req.path),
      statusCode: status,
      timestamp: isoTime(clock.now()),
    });
  };
}

const noNext: Next = async () => {};

/** the not-found answer has no op() to admit by */
const admitted: Admit = () => undefined;
