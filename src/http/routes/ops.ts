// Operations endpoints (docs/operations.md#health-and-metrics): health, readiness, metrics, the OpenAPI document and docs.
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { opsOf } from '../op.js';
import { buildOpenApi } from '../openapi.js';
import { buildAsyncApi } from '../asyncapi.js';
import { AppError } from '../../domain/errors.js';
import { DOCS_CSP, DOCS_HTML, readScalarBundle } from '../docs-page.js';

export function opsRoutes(root: Hono<HttpEnv>): Hono<HttpEnv> {
  const ops = new Hono<HttpEnv>();
  let openapi: unknown;
  const op = opsOf({ authenticated: false, tag: 'operations', statuses: [500, 503], success: 200 });

  ops.get('/healthz', op({ operationId: 'health', summary: 'Process is up' }), (c) => c.json({ status: 'ok' }));

  ops.get('/readyz', op({ operationId: 'ready', summary: 'Store and bus reachable' }), async (c) => {
    const deps = c.get('deps');
    try {
      await deps.store.ping();
      await deps.readiness?.();
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', { message: (err as Error).message });
    }
    return c.json({ status: 'ready' });
  });

  ops.get('/metrics', op({ operationId: 'metrics', summary: 'Prometheus metrics' }), async (c) => {
    const reg = c.get('deps').metrics.registry;
    return c.body(await reg.metrics(), 200, { 'content-type': reg.contentType });
  });

  ops.get('/openapi.json', op({ operationId: 'openapi', summary: 'This API as OpenAPI 3.1' }), (c) => {
    openapi ??= buildOpenApi(root, { version: '0.1.0' });
    return c.json(openapi);
  });

  let asyncapi: unknown;
  ops.get('/asyncapi.json', op({ operationId: 'asyncapi', summary: 'The device side (MQTT topics, WebSocket channels) as AsyncAPI 3.0' }), (c) => {
    asyncapi ??= buildAsyncApi({ version: '0.1.0' });
    return c.json(asyncapi);
  });

  // docs/api.md#explorer: the page's own Content-Security-Policy (src/http/docs-page.ts says what it allows)
  ops.get('/docs', op({ operationId: 'docs', summary: 'Interactive reference (Scalar): grouped, searchable, with try-it' }), (c) =>
    c.html(DOCS_HTML, 200, { 'content-security-policy': DOCS_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }),
  );

  let scalar: Promise<Buffer | undefined> | undefined;
  ops.get(
    '/docs/scalar.js',
    op({ operationId: 'docsScript', summary: "The explorer's script (Scalar's standalone bundle, copied into dist/ by the build)" }),
    async (c) => {
      scalar ??= readScalarBundle();
      const bytes = await scalar.catch((err) => {
        scalar = undefined;
        throw err;
      });
      if (!bytes) {
        scalar = undefined;
        throw new AppError('SERVICE_UNAVAILABLE', { message: 'the /docs explorer is not built: run `npm run build` (npm install does it)' });
      }
      return c.body(new Uint8Array(bytes), 200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        'x-content-type-options': 'nosniff',
      });
    },
  );
  return ops;
}
