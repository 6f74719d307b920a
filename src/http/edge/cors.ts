// The headers every answer carries: the request id and CORS (docs/api.md#conventions: any
// origin, no credentials; HEARTH_CORS_ORIGINS may list the origins answered instead). Written
// here rather than hono/cors, which sets its headers through c.res before the handler runs; that
// placeholder response makes @hono/node-server rebuild every real response as a full Response
// object (a third of the throughput of a plain GET, measured by `npm run bench -- api`).
import type { Context } from 'hono';
import type { ServerResponse } from 'node:http';
import { RANGE_HEADER } from '../paging.js';
import { EdgeResponse } from './response.js';

const CORS_EXPOSE = [RANGE_HEADER, 'X-Request-Id', 'Retry-After'].join(',');
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET,POST,PUT,PATCH,DELETE,OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization,Content-Type,X-Request-Id',
  'Access-Control-Max-Age': '600',
};

/** what one request's answer gets from the edge */
export interface EdgeHeaders {
  requestId: string;
  /** the Access-Control-Allow-Origin to send: `*`, the request's origin when it is listed, or none */
  allow: string | undefined;
  /** HEARTH_CORS_ORIGINS is a list: every answer varies by Origin */
  vary: boolean;
  /** an OPTIONS preflight, which has its own CORS headers */
  preflight: boolean;
  /** nothing could be preset: the headers are added to the answer itself */
  fill: boolean;
}

/**
 * HEARTH_CORS_ORIGINS as a list (docs/api.md#conventions): a listed Origin is echoed, any other gets no
 * Access-Control-Allow-Origin; every answer then varies by Origin. Undefined for `*`.
 */
export function corsList(origins: readonly string[] | undefined): Set<string> | undefined {
  if (!origins || (origins.length === 1 && origins[0] === '*')) return undefined;
  return new Set(origins);
}

/** the preflight answer: for a listed origin, or the refusal (no Allow-* headers) for another */
export function preflightHeaders(h: EdgeHeaders): Record<string, string> {
  if (!h.vary) return PREFLIGHT_HEADERS;
  return h.allow === undefined ? { Vary: 'Origin' } : { ...PREFLIGHT_HEADERS, 'Access-Control-Allow-Origin': h.allow, Vary: 'Origin' };
}

/**
 * The headers, set before the answer exists (c.header() on a built response rebuilds it as a
 * full Response: a third of a GET). The API's own server (main.ts) adds them as the head is
 * written (response.ts); any other Node server gets them preset on its response, which Node
 * merges into the head the adapter writes. Elsewhere (app.request in tests) they are prepared on
 * the context, which merges them into whatever response the handler builds; fillHeaders() adds
 * them to a response the handler built itself.
 */
export function presetHeaders(c: Context, h: EdgeHeaders): void {
  const { requestId, allow, vary, preflight } = h;
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing instanceof EdgeResponse) {
    outgoing.edgeRequestId = requestId;
    if (!preflight && allow !== undefined) {
      outgoing.edgeExpose = CORS_EXPOSE;
      if (vary) outgoing.edgeOrigin = allow;
    }
    if (vary && !preflight) outgoing.edgeVary = true;
  } else if (outgoing) {
    outgoing.setHeader('x-request-id', requestId);
    if (!preflight) {
      if (allow !== undefined) {
        outgoing.setHeader('Access-Control-Allow-Origin', allow);
        outgoing.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE);
      }
      if (vary) outgoing.setHeader('Vary', 'Origin');
    }
  } else {
    h.fill = true;
    c.header('x-request-id', requestId);
    if (!preflight) {
      if (allow !== undefined) {
        c.header('Access-Control-Allow-Origin', allow);
        c.header('Access-Control-Expose-Headers', CORS_EXPOSE);
      }
      if (vary) c.header('Vary', 'Origin', { append: true });
    }
  }
}

/** a response the handler built itself did not get the prepared headers */
export function fillHeaders(res: Response, h: EdgeHeaders): void {
  const headers = res.headers;
  if (!headers.has('x-request-id')) headers.set('x-request-id', h.requestId);
  if (h.preflight) return;
  if (h.allow !== undefined && !headers.has('access-control-allow-origin')) {
    headers.set('Access-Control-Allow-Origin', h.allow);
    headers.set('Access-Control-Expose-Headers', CORS_EXPOSE);
  }
  if (h.vary && !/\borigin\b/i.test(headers.get('vary') ?? '')) headers.append('Vary', 'Origin');
}
