// createApi: builds the Hono app (it never listens; main.ts does). One sub-app per resource; each
// route reaches the router folded with the edge and its op() into one handler (edge/index.ts).
import { Hono, type Handler } from 'hono';
import type { RouterRoute } from 'hono/types';
import { AppError } from '../domain/errors.js';
import type { ApiDeps, HttpEnv } from './env.js';
import { errorResponse, onError } from './errors.js';
import { ROUTES } from './routes/index.js';
import { opsRoutes } from './routes/ops.js';
import { allowedMethods } from './edge/method-not-allowed.js';
import { createEdge } from './edge/index.js';
import { FoldingRouter } from './edge/router.js';

export function createApi(deps: ApiDeps): Hono<HttpEnv> {
  // RegExpRouter, never the TrieRouter fallback (edge/router.ts)
  const router = new FoldingRouter<RouterRoute>();
  const app = new Hono<HttpEnv>({ router });
  const edge = createEdge(deps);

  // Every route's handlers, by method and full path, in the order Hono would have run them had
  // the sub-apps been mounted with app.route(): one handler each on the app.
  const mounted = new Hono<HttpEnv>();
  mounted.route('/', opsRoutes(app));
  if (!deps.operationsOnly) for (const [path, sub] of ROUTES) mounted.route(path, sub());
  const byRoute = new Map<string, { method: string; path: string; handlers: Handler<HttpEnv>[] }>();
  for (const r of mounted.routes) {
    const key = `${r.method} ${r.path}`;
    let route = byRoute.get(key);
    if (!route) byRoute.set(key, (route = { method: r.method, path: r.path, handlers: [] }));
    route.handlers.push(r.handler as Handler<HttpEnv>);
  }
  for (const { method, path, handlers } of byRoute.values()) app.on(method, path, edge.route(handlers));

  // a path no route has is 404; a known path asked with another method is 405 (docs/api.md#conventions)
  const allowed = allowedMethods(app);
  app.notFound(
    edge.notFound((c) => {
      const methods = allowed(c.req.path);
      if (methods && !methods.includes(c.req.method)) return errorResponse(c, new AppError('METHOD_NOT_ALLOWED', { allowed: methods }));
      if (deps.operationsOnly)
        return errorResponse(
          c,
          new AppError('NOT_FOUND', { path: c.req.path, message: 'this node does not run the api role; send API requests to an api node' }),
        );
      return errorResponse(c, new AppError('NOT_FOUND', { path: c.req.path }));
    }),
  );
  app.onError(onError);
  router.build();
  return app;
}
