// 204 No Content. `c.body(null, 204)` takes @hono/node-server's slow path: its lightweight
// Response keeps only a string or byte body, so a null one is built as a full WHATWG Response
// whose headers the adapter then copies out, adding a `Content-Type: text/plain` a 204 has no use
// for (about 2% of a `PUT /devices/{id}/event`, `npm run bench -- webhooks`). Under the API's
// own server (EdgeResponse, main.ts) the answer is an empty string with an empty header object,
// which the adapter writes straight out; EdgeResponse drops the `Content-Length: 0` it adds
// (RFC 9110 §8.6: a 204 has none). Elsewhere (app.request in tests, any other server) a null
// body, as a WHATWG 204 must be.
import type { Context } from 'hono';
import { EdgeResponse } from './edge/response.js';

/** whether the global Response is the adapter's lightweight one (a WHATWG one refuses a 204 with a body) */
let lightweight: boolean | undefined;

export function noContent(c: Context): Response {
  // '' typed as null: Hono's types rightly want a 204 without a body, which '' is on the wire
  if ((c.env as { outgoing?: unknown } | undefined)?.outgoing instanceof EdgeResponse && (lightweight ??= acceptsBodyOn204()))
    return c.body('' as unknown as null, 204, {});
  return c.body(null, 204);
}

function acceptsBodyOn204(): boolean {
  try {
    new Response('', { status: 204 });
    return true;
  } catch {
    return false;
  }
}
