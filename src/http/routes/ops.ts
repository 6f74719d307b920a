// Operations endpoints (API.md §11): health, readiness, metrics, the OpenAPI document and docs.
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { buildOpenApi } from '../openapi.js';
import { AppError } from '../../domain/errors.js';

const DOCS_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Hearth API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}code{background:#f4f4f4;padding:0 .2em}
.op{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;width:4.5rem;font-weight:bold}</style></head>
<body><h1>Hearth API</h1><p>Generated from <a href="/openapi.json">/openapi.json</a>. Send credentials as
<code>Authorization: ModeCloud &lt;token&gt;</code>.</p><div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{const out=[];
for(const [p,ms] of Object.entries(doc.paths))for(const [m,o] of Object.entries(ms)){
out.push('<div class="op"><span class="m">'+m.toUpperCase()+'</span><code>'+p+'</code> '+(o.summary||'')+
' <small>('+o.operationId+'; '+Object.keys(o.responses).join(', ')+')</small>'+(o.description?'<br><small>'+o.description+'</small>':'')+'</div>');}
document.getElementById('ops').innerHTML=out.join('');});
</script></body></html>`;

export function opsRoutes(root: Hono<HttpEnv>): Hono<HttpEnv> {
  const ops = new Hono<HttpEnv>();
  let openapi: unknown;
  const open = { authenticated: false, tag: 'operations', statuses: [500, 503] } as const;

  ops.get('/healthz', op({ ...open, operationId: 'health', summary: 'Process is up', success: 200 }), (c) => c.json({ status: 'ok' }));

  ops.get('/readyz', op({ ...open, operationId: 'ready', summary: 'Store and bus reachable', success: 200 }), async (c) => {
    const deps = c.get('deps');
    try {
      await deps.store.ping();
      await deps.readiness?.();
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', { message: (err as Error).message });
    }
    return c.json({ status: 'ready' });
  });

  ops.get('/metrics', op({ ...open, operationId: 'metrics', summary: 'Prometheus metrics', success: 200 }), async (c) => {
    const reg = c.get('deps').metrics.registry;
    return c.body(await reg.metrics(), 200, { 'content-type': reg.contentType });
  });

  ops.get('/openapi.json', op({ ...open, operationId: 'openapi', summary: 'This API as OpenAPI 3.1', success: 200 }), (c) => {
    openapi ??= buildOpenApi(root, { version: '0.1.0' });
    return c.json(openapi);
  });

  ops.get('/docs', op({ ...open, operationId: 'docs', summary: 'Interactive reference', success: 200 }), (c) => c.html(DOCS_HTML));
  return ops;
}
