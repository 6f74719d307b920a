// createApi: builds the Hono app (it never listens; main.ts does). One sub-app per resource.
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { NOBODY, callerProjectId } from '../domain/auth/caller.js';
import type { ApiDeps, HttpEnv } from './env.js';
import { errorResponse, onError } from './errors.js';
import { RANGE_HEADER } from './paging.js';
import { loggablePath } from './access-log.js';
import { clientIp } from './client-ip.js';
import { ROUTES } from './routes/index.js';
import { opsRoutes } from './routes/ops.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

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
    await next();
    c.header('x-request-id', requestId);
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

  app.use(
    '*',
    cors({
      origin: '*',
      credentials: false,
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
      exposeHeaders: [RANGE_HEADER, 'X-Request-Id', 'Retry-After'],
    }),
  );

  app.use(
    '*',
    bodyLimit({
      maxSize: deps.bodyLimitBytes,
      onError: (c) => errorResponse(c as never, new AppError('BODY_TOO_LARGE', { limit: deps.bodyLimitBytes })),
    }),
  );

  // known path, wrong method: 405 (it looks at the answer of the routes below)
  app.use('*', methodNotAllowed({ app, onMethodNotAllowed: (c, allowed) => errorResponse(c as never, new AppError('METHOD_NOT_ALLOWED', { allowed })) }));

  app.route('/', opsRoutes(app));
  for (const [path, sub] of ROUTES) app.route(path, sub());

  app.notFound((c) => errorResponse(c, new AppError('NOT_FOUND', { path: c.req.path })));
  app.onError(onError);
  return app;
}
