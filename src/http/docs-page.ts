// The /docs explorer: Scalar's API reference, served from the installed package (no CDN, works
// offline), reading /openapi.json and sending `Authorization: ModeCloud <token>` from try-it.
// docs/api.md#explorer
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** where the standalone browser bundle of @scalar/api-reference lies on disk */
export const SCALAR_BUNDLE_PATH = require.resolve('@scalar/api-reference/browser/standalone.js');

/** the bundle's bytes, read at the first request and kept by the caller */
export const readScalarBundle = (): Promise<Buffer> => readFile(SCALAR_BUNDLE_PATH);

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

export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth API</title></head>
<body>
<noscript>The reference needs JavaScript. The raw contracts: <a href="/openapi.json">/openapi.json</a>, <a href="/asyncapi.json">/asyncapi.json</a>.</noscript>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>Scalar.createApiReference('#app', ${JSON.stringify(CONFIG)});</script>
</body></html>`;
