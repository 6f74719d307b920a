// Outbound webhook HTTP (docs/webhooks.md): one keep-alive pool per origin (http1-pool.ts), not global
// fetch (measured 4x slower here, docs/architecture.md#house-rules rule 11) nor node:http's Agent (3x the CPU per
// exchange). This file turns a request into the bytes sent: the URL's route, the headers checked
// as node:http would check them, the framing headers set by us. send() never rejects: every
// network problem becomes a result the delivery loop can record and schedule a retry from.

import type { WebhookResult } from './http-response.js';
import { createPools } from './http1-pool.js';
import { TOKEN } from './http1-parser.js';
import { bareHost, isAllowedAddress, isIpLiteral, parseTargetUrl, TargetNotAllowedError } from '../../../domain/webhook/target-policy.js';
import { guardedLookup } from './guarded-lookup.js';

export { checkTargetUrl, TargetNotAllowedError } from '../../../domain/webhook/target-policy.js';
export { parseRetryAfter, type WebhookResult } from './http-response.js';

export interface WebhookClientOptions {
  allowPrivateTargets: boolean;
  /** Whole exchange: queueing, DNS, connect, request, response head and body. Default 10 s. */
  timeoutMs?: number;
  /** Response bytes kept (docs/api.md#limits: 4 KiB); the socket is dropped if more arrives. */
  maxResponseBytes?: number;
  /** Concurrent sockets per origin. Default: unlimited (Node's default). */
  maxSockets?: number;
  /** Report the response headers (WebhookResult.headers). Default true; the worker needs none. */
  responseHeaders?: boolean;
  /** Certificates trusted for https targets instead of Node's bundled roots (PEM). */
  ca?: string | string[];
}

export interface WebhookRequest {
  url: string;
  method?: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string;
}

export interface WebhookClient {
  send(req: WebhookRequest): Promise<WebhookResult>;
  /** Destroys every pooled socket; later sends resolve with error CLIENT_CLOSED. */
  close(): void;
}

// Idle pooled sockets are closed after this, or sooner when the server's `Keep-Alive: timeout=` says
// so (http1-pool.ts).
const IDLE_SOCKET_MS = 4_000;
// Framing and hop-by-hop headers are ours to set: a templated Content-Length would corrupt framing.
const OWNED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** Bad limits are a configuration error: refused at construction rather than failing every send later. */
export function checkClientOptions(opts: WebhookClientOptions): void {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxResponseBytes = opts.maxResponseBytes ?? 4096;
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
  if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 0) throw new RangeError(`maxResponseBytes must be a non-negative integer`);
  if (opts.maxSockets !== undefined && !(Number.isInteger(opts.maxSockets) && opts.maxSockets >= 1)) {
    throw new RangeError(`maxSockets must be a positive integer, got ${opts.maxSockets}`);
  }
}

/** What a webhook URL resolves to, parsed once per URL (routes are cached). */
interface Route {
  origin: string;
  https: boolean;
  /** bare host (IPv6 without brackets), for the socket */
  hostname: string;
  port: number;
  /** the request line's target: path and query, as the URL parser encoded them */
  path: string;
  /** the host with brackets and a non-default port, as a browser would send it */
  hostHeader: string;
  /** `Basic ...` from user:password in the URL */
  authorization?: string;
  /** a literal IP the target policy refuses (names are judged at connect time) */
  refused: boolean;
}

// header values as node:http accepts them (no CR, LF, NUL or other controls); names are TOKENs
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

// URLs remembered; the oldest is forgotten first
const MAX_ROUTES = 1024;

/** what a header name is to the request head (requestHead) */
const enum Name {
  Plain,
  /** not a TOKEN: the request is refused */
  Refused,
  /** framing and hop-by-hop (OWNED_HEADERS): left out, ours are written */
  Owned,
  Host,
  Authorization,
}

// Header names judged, by their spelling: every delivery sends the same few names (request.ts),
// and a TOKEN test and a lowercase copy per header per request made a head cost 0.86 µs against
// 0.63 µs (same process, alternating; issue #26). Templates may name more; the oldest is
// forgotten first past the bound.
const MAX_NAMES = 1024;
const nameKinds = new Map<string, Name>();

function kindOf(name: string): Name {
  let kind: Name;
  if (!TOKEN.test(name)) kind = Name.Refused;
  else {
    const lower = name.toLowerCase();
    kind = OWNED_HEADERS.has(lower) ? Name.Owned : lower === 'host' ? Name.Host : lower === 'authorization' ? Name.Authorization : Name.Plain;
  }
  nameKinds.set(name, kind);
  if (nameKinds.size > MAX_NAMES) nameKinds.delete(nameKinds.keys().next().value!);
  return kind;
}

export function createWebhookClient(opts: WebhookClientOptions): WebhookClient {
  checkClientOptions(opts);
  const pools = createPools({
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxResponseBytes: opts.maxResponseBytes ?? 4096,
    headers: opts.responseHeaders ?? true,
    maxSockets: opts.maxSockets ?? Infinity,
    idleMs: IDLE_SOCKET_MS,
    lookup: opts.allowPrivateTargets ? undefined : guardedLookup,
    ca: opts.ca,
  });
  const routes = new Map<string, Route | string>();
  let closed = false;

  /** the route of a URL, or the error code a send to it fails with */
  function routeOf(url: string): Route | string {
    let route = routes.get(url);
    if (route !== undefined) return route;
    try {
      const target = parseTargetUrl(url);
      const hostname = bareHost(target.hostname);
      const https = target.protocol === 'https:';
      route = {
        origin: target.origin,
        https,
        hostname,
        port: target.port ? Number(target.port) : https ? 443 : 80,
        path: (target.pathname || '/') + target.search,
        hostHeader: target.host,
        // A literal IP is dialled without any lookup, so it is judged here; names are judged by
        // guardedLookup at connect time, on the addresses actually dialled.
        refused: !opts.allowPrivateTargets && isIpLiteral(hostname) && !isAllowedAddress(hostname),
      };
      if (target.username || target.password) {
        const auth = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
        route.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
      }
    } catch (err) {
      route = err instanceof TargetNotAllowedError && URL.canParse(url) ? err.code : 'INVALID_URL';
    }
    routes.set(url, route);
    if (routes.size > MAX_ROUTES) routes.delete(routes.keys().next().value!);
    return route;
  }

  async function send(req: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    const failed = (error: string): WebhookResult => ({ ok: false, responseBody: '', latencyMs: performance.now() - started, error });
    if (closed) return failed('CLIENT_CLOSED');
    const route = routeOf(req.url);
    if (typeof route === 'string') return failed(route);
    if (route.refused) return failed('TARGET_NOT_ALLOWED');
    const bodyLength = Buffer.byteLength(req.body, 'utf8');
    const head = requestHead(req, route, bodyLength);
    if ('error' in head) return failed(head.error);
    // one buffer, one write: the head, then the exact bytes the signature covers (docs/webhooks.md#verifying-signatures)
    const headLength = head.text.length;
    const request = Buffer.allocUnsafe(headLength + bodyLength);
    request.write(head.text, 0, 'latin1');
    request.write(req.body, headLength, 'utf8');
    return pools.exchange(route, request, started);
  }

  function close(): void {
    closed = true;
    pools.close();
  }

  return { send, close };
}

/**
 * The request line and headers: the caller's without framing ones, then Host, Authorization
 * (unless given), Content-Length and Connection. A name or value node:http would refuse is
 * refused with its code, and nothing is sent.
 */
function requestHead(req: WebhookRequest, route: Route, bodyLength: number): { text: string } | { error: string } {
  let text = `${req.method ?? 'POST'} ${route.path} HTTP/1.1\r\n`;
  let host = false;
  let authorization = false;
  for (const name in req.headers) {
    const value = req.headers[name];
    const kind = nameKinds.get(name) ?? kindOf(name);
    if (kind === Name.Refused) return { error: 'ERR_INVALID_HTTP_TOKEN' };
    if (BAD_VALUE.test(value)) return { error: 'ERR_INVALID_CHAR' };
    if (kind === Name.Owned) continue;
    if (kind === Name.Host) host = true;
    else if (kind === Name.Authorization) authorization = true;
    text += `${name}: ${value}\r\n`;
  }
  if (!host) text += `Host: ${route.hostHeader}\r\n`;
  if (route.authorization && !authorization) text += `Authorization: ${route.authorization}\r\n`;
  return { text: `${text}Content-Length: ${bodyLength}\r\nConnection: keep-alive\r\n\r\n` };
}
