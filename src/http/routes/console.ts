// The web console (src/console, built into dist/console by `npm run build:console`): static files
// at /console, read once and kept in memory. The console is a client of the public API like any
// other; these routes only hand it out, with a strict Content-Security-Policy: scripts, styles
// and connections from this origin only, no inline script, no framing.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono, type Context } from 'hono';
import type { HttpEnv } from '../env.js';
import { opsOf } from '../op.js';
import { AppError } from '../../domain/errors.js';
import { builtPath } from '../built.js';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export function consoleRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const cache = new Map<string, Buffer>();
  const dir = builtPath(['console']);
  const op = opsOf({ authenticated: false, tag: 'console', statuses: [404, 500, 503], success: 200 });

  const serve = (c: Context<HttpEnv>, name: string) => {
    const type = FILES[name];
    if (!type) throw new AppError('NOT_FOUND', { path: c.req.path });
    let body = cache.get(name);
    if (!body) {
      const file = dir && join(dir, name);
      if (!file || !existsSync(file))
        throw new AppError('SERVICE_UNAVAILABLE', { message: 'the console is not built: run `npm run build` (npm install does it)' });
      body = readFileSync(file);
      cache.set(name, body);
    }
    return c.body(new Uint8Array(body), 200, {
      'content-type': type,
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
  };

  r.get('/', op({ operationId: 'console', summary: 'The web console (a single page; sign in with a user or a project API key)' }), (c) =>
    serve(c, 'index.html'),
  );
  r.get('/:file', op({ operationId: 'consoleAsset', summary: "The console's script and stylesheet" }), (c) => serve(c, c.req.param('file')));
  return r;
}
