// The /docs explorer: Scalar's API reference, served from the build (dist/explorer, copied there
// from the dev dependency by scripts/build.mjs: no CDN, works offline, and a production install
// carries no Scalar package), reading /openapi.json and sending `Authorization: ModeCloud <token>`
// from try-it. The page has a Content-Security-Policy of its own that allows what the explorer
// needs and nothing more. docs/api.md#explorer
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { builtPath } from './built.js';

/** where the build put Scalar's standalone browser bundle */
export const SCALAR_BUNDLE_PATH = builtPath(['explorer', 'scalar.js']);

/** the bundle's bytes (read at the first request and kept by the caller), or undefined when it is not built */
export const readScalarBundle = (): Promise<Buffer | undefined> =>
  SCALAR_BUNDLE_PATH
    ? readFile(SCALAR_BUNDLE_PATH).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      })
    : Promise.resolve(undefined);

// Scalar's options: no web fonts, telemetry or proxy (each would reach the internet); the
// ModeCloud scheme is the one try-it fills in first.
const CONFIG = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideDownloadButton: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenAllTags: false,
  authentication: { preferredSecurityScheme: 'ModeCloud' },
  metaData: { title: 'Hearth API' },
};

const INIT = `Scalar.createApiReference('#app', ${JSON.stringify(CONFIG)});`;

/** the page's icon, inline (no request, so no 404): a flame in the console's accent colour */
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#e8590c" d="M8 1c1 3 5 5 5 9a5 5 0 0 1-10 0c0-2 1-3 2-4 0 2 1 3 2 3-1-3 0-6 1-8z"/></svg>',
  );

/**
 * The page's Content-Security-Policy: scripts from this origin plus the one inline start-up
 * script (by its hash), no eval; connections (the document, try-it) to this origin only; images
 * from here and data: (the icon, Scalar's inline pictures); Scalar writes its stylesheet into
 * <style> elements and style attributes, hence 'unsafe-inline' for styles and only for them.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(INIT).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth API</title><link rel="icon" href="${FAVICON}"></head>
<body>
<noscript>The reference needs JavaScript. The raw contracts: <a href="/openapi.json">/openapi.json</a>, <a href="/asyncapi.json">/asyncapi.json</a>.</noscript>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>${INIT}</script>
</body></html>`;
