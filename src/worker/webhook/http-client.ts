// Outbound webhook HTTP (API.md §9). node:http/https with one keep-alive Agent per origin, not
// global fetch (measured 4x slower here, ARCHITECTURE rule 11). send() never rejects: every
// network problem becomes a result the delivery loop can record and schedule a retry from.

import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { readResponse, type WebhookResult } from './http-response.js';
import { bareHost, guardedLookup, isAllowedAddress, parseTargetUrl, TargetNotAllowedError } from './target-policy.js';

export { checkTargetUrl, TargetNotAllowedError } from './target-policy.js';
export { parseRetryAfter, type WebhookResult } from './http-response.js';

export interface WebhookClientOptions {
  allowPrivateTargets: boolean;
  /** Whole exchange: queueing, DNS, connect, request, response head and body. Default 10 s. */
  timeoutMs?: number;
  /** Response bytes kept (API.md §13: 4 KiB); the socket is dropped if more arrives. */
  maxResponseBytes?: number;
  /** Concurrent sockets per origin. Default: unlimited (Node's default). */
  maxSockets?: number;
  /** Report the response headers (WebhookResult.headers). Default true; the worker needs none. */
  responseHeaders?: boolean;
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

// Idle pooled sockets are closed after this; Node also honours a shorter `Keep-Alive: timeout=`.
const IDLE_SOCKET_MS = 4_000;
// Agents kept for this many origins; the oldest is forgotten (its idle sockets time out).
const MAX_AGENTS = 256;
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

/** What a webhook URL resolves to for node:http, parsed once per URL (routes are cached). */
interface Route {
  origin: string;
  https: boolean;
  /** bare host (IPv6 without brackets), for the socket */
  hostname: string;
  port: string;
  path: string;
  /** as Node would send it: the host with brackets and a non-default port */
  hostHeader: string;
  /** `Basic ...` from user:password in the URL */
  authorization?: string;
  /** a literal IP the target policy refuses (names are judged at connect time) */
  refused: boolean;
}

// URLs remembered; the oldest is forgotten first
const MAX_ROUTES = 1024;

export function createWebhookClient(opts: WebhookClientOptions): WebhookClient {
  checkClientOptions(opts);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxResponseBytes = opts.maxResponseBytes ?? 4096;
  const limits = { timeoutMs, maxResponseBytes, headers: opts.responseHeaders ?? true };
  const agents = new Map<string, http.Agent>();
  const routes = new Map<string, Route | string>();
  let closed = false;

  function agentFor(route: Route): http.Agent {
    let agent = agents.get(route.origin);
    if (agent) return agent;
    const options: http.AgentOptions = { keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS };
    if (opts.maxSockets !== undefined) options.maxSockets = opts.maxSockets;
    agent = route.https ? new https.Agent(options) : new http.Agent(options);
    agents.set(route.origin, agent);
    if (agents.size > MAX_AGENTS) agents.delete(agents.keys().next().value!);
    return agent;
  }

  /** the route of a URL, or the error code a send to it fails with */
  function routeOf(url: string): Route | string {
    let route = routes.get(url);
    if (route !== undefined) return route;
    try {
      const target = parseTargetUrl(url);
      const hostname = bareHost(target.hostname);
      route = {
        origin: target.origin,
        https: target.protocol === 'https:',
        hostname,
        port: target.port,
        path: target.pathname + target.search,
        hostHeader: target.host,
        // A literal IP is dialled without any lookup, so it is judged here; names are judged by
        // guardedLookup at connect time, on the addresses actually dialled.
        refused: !opts.allowPrivateTargets && isIP(hostname) !== 0 && !isAllowedAddress(hostname),
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

    const body = Buffer.from(req.body, 'utf8'); // the exact bytes the signature covers (SPEC 5.3)
    const options: http.RequestOptions = {
      hostname: route.hostname,
      port: route.port || undefined,
      path: route.path,
      method: req.method ?? 'POST',
      // as a flat list, written as given: Node skips its per-header bookkeeping, and adds none
      // of its own, so Host and Authorization are set here as it would set them
      headers: headerList(req.headers, route, body.length),
      agent: agentFor(route),
    };
    if (!opts.allowPrivateTargets) options.lookup = guardedLookup;

    let request: http.ClientRequest;
    try {
      request = (route.https ? https : http).request(options);
    } catch (err) {
      // Node validates header names and values synchronously (ERR_INVALID_CHAR, ...).
      return failed((err as NodeJS.ErrnoException).code ?? 'INVALID_REQUEST');
    }
    return readResponse(request, body, started, limits);
  }

  function close(): void {
    closed = true;
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
  }

  return { send, close };
}

/** the caller's headers without framing ones, then Host, Authorization (unless given) and Content-Length */
function headerList(headers: Record<string, string>, route: Route, length: number): string[] {
  const list: string[] = [];
  let host = false;
  let authorization = false;
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (OWNED_HEADERS.has(lower)) continue;
    if (lower === 'host') host = true;
    else if (lower === 'authorization') authorization = true;
    list.push(name, headers[name]);
  }
  if (!host) list.push('Host', route.hostHeader);
  if (route.authorization && !authorization) list.push('Authorization', route.authorization);
  list.push('Content-Length', String(length));
  return list;
}
