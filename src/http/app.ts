// createApi: builds the Hono app (it never listens; main.ts does). One sub-app per resource.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { AppError } from '../domain/errors.js';
import { NOBODY, callerProjectId } from '../domain/auth/caller.js';
import type { ApiDeps, HttpEnv } from './env.js';
import { errorResponse, onError } from './errors.js';
import { RANGE_HEADER } from './paging.js';
import { loggablePath } from './access-log.js';
import { clientIp } from './client-ip.js';
import { ROUTES } from './routes/index.js';
import { opsRoutes } from './routes/ops.js';
import { PART_UPLOAD_PATH } from './routes/device-logger.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Headers every answer carries. Under @hono/node-server they go straight onto the Node response
 * (Node merges them into the head the adapter writes), which costs less than building Hono's
 * Headers object for each answer; elsewhere (app.request in tests) they are prepared on the
 * context, which merges them into whatever response the handler builds.
 */
function presetHeader(c: Context<HttpEnv>, name: string, value: string): boolean {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) {
    outgoing.setHeader(name, value);
    return true;
  }
  c.header(name, value);
  return false;
}

// CORS (API.md §0): any origin, no credentials. Written here rather than hono/cors, which sets
// its headers through c.res before the handler runs; that placeholder response makes
// @hono/node-server rebuild every real response as a full Response object (a third of the
// throughput of a plain GET, measured by `npm run bench -- api`).
const CORS_EXPOSE = [RANGE_HEADER, 'X-Request-Id', 'Retry-After'].join(',');
const CORS_METHODS = 'GET,POST,PUT,PATCH,DELETE,OPTIONS';
const CORS_HEADERS = 'Authorization,Content-Type,X-Request-Id';
const cors: MiddlewareHandler<HttpEnv> = async (c, next) => {
  if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
    return c.body(null, 204, {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': CORS_METHODS,
      'Access-Control-Allow-Headers': CORS_HEADERS,
      'Access-Control-Max-Age': '600',
    });
  }
  const onNode = presetHeader(c, 'Access-Control-Allow-Origin', '*');
  presetHeader(c, 'Access-Control-Expose-Headers', CORS_EXPOSE);
  await next();
  // a handler that built its Response itself did not get the prepared headers
  if (!onNode && !c.res.headers.has('access-control-allow-origin')) {
    c.res.headers.set('Access-Control-Allow-Origin', '*');
    c.res.headers.set('Access-Control-Expose-Headers', CORS_EXPOSE);
  }
};

export function createApi(deps: ApiDeps): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('logger', deps.logger);
    c.set('caller', NOBODY);
    c.set('op', undefined);
    const start = process.hrtime.bigint();
    // before next(): c.header() AFTER the response exists rebuilds it as a full Response (hono's
    // finalized path), which costs a third of a GET
    const onNode = presetHeader(c, 'x-request-id', requestId);
    await next();
    if (!onNode && !c.res.headers.has('x-request-id')) c.res.headers.set('x-request-id', requestId);
    const latencyNs = process.hrtime.bigint() - start;
    const op = c.get('op');
    const route = op?.operationId ?? 'unmatched';
    deps.metrics.requests.inc({ route, method: c.req.method, status: String(c.res.status) });
    deps.metrics.latency.observe({ route, method: c.req.method }, Number(latencyNs) / 1e9);
    // API.md §8: every authenticated request, under its project
    const projectId = callerProjectId(c.get('caller'));
    if (projectId !== undefined) {
      deps.accessLog.record({
        projectId,
        clientIp: clientIp(c),
        latency: Number(latencyNs),
        method: c.req.method,
        path: loggablePath(c.req.path),
        statusCode: c.res.status,
        timestamp: deps.clock.now().toISOString(),
      });
    }
  });

  app.use('*', cors);

  const tooLarge = (c: Context<HttpEnv>) => errorResponse(c, new AppError('BODY_TOO_LARGE', { limit: deps.bodyLimitBytes }));
  const streamedLimit = bodyLimit({ maxSize: deps.bodyLimitBytes, onError: (c) => tooLarge(c as never) });
  app.use('*', (c, next) => {
    // Only a streamed body (chunked, no Content-Length) needs counting while it is read; the
    // others are judged from their header. GET and HEAD never carry one under @hono/node-server.
    // (Counting touches c.req.raw.body, which builds a full Request: too dear for every GET.)
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    // log file parts (API.md §13: 5 MiB) are bounded by their own route, to one part's size
    if (PART_UPLOAD_PATH.test(c.req.path)) return next();
    const length = c.req.header('content-length');
    if (length !== undefined && !c.req.header('transfer-encoding')) return Number(length) > deps.bodyLimitBytes ? Promise.resolve(tooLarge(c)) : next();
    return streamedLimit(c, next);
  });

  // known path, wrong method: 405 (it looks at the answer of the routes below)
  app.use('*', methodNotAllowed({ app, onMethodNotAllowed: (c, allowed) => errorResponse(c as never, new AppError('METHOD_NOT_ALLOWED', { allowed })) }));

  app.route('/', opsRoutes(app));
  for (const [path, sub] of ROUTES) app.route(path, sub());

  app.notFound((c) => errorResponse(c, new AppError('NOT_FOUND', { path: c.req.path })));
  app.onError(onError);
  return app;
}
