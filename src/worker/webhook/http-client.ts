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

export function createWebhookClient(opts: WebhookClientOptions): WebhookClient {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxResponseBytes = opts.maxResponseBytes ?? 4096;
  // Bad limits are a configuration error: refuse them here rather than fail every send later.
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
  if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 0) throw new RangeError(`maxResponseBytes must be a non-negative integer`);
  if (opts.maxSockets !== undefined && !(Number.isInteger(opts.maxSockets) && opts.maxSockets >= 1)) {
    throw new RangeError(`maxSockets must be a positive integer, got ${opts.maxSockets}`);
  }
  const agents = new Map<string, http.Agent>();
  let closed = false;

  function agentFor(target: URL): http.Agent {
    let agent = agents.get(target.origin);
    if (agent) return agent;
    const options: http.AgentOptions = { keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS };
    if (opts.maxSockets !== undefined) options.maxSockets = opts.maxSockets;
    agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(target.origin, agent);
    if (agents.size > MAX_AGENTS) agents.delete(agents.keys().next().value!);
    return agent;
  }

  async function send(req: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    const failed = (error: string): WebhookResult => ({ ok: false, responseBody: '', latencyMs: performance.now() - started, error });
    if (closed) return failed('CLIENT_CLOSED');
    let target: URL;
    try {
      target = parseTargetUrl(req.url);
    } catch (err) {
      return failed(err instanceof TargetNotAllowedError && URL.canParse(req.url) ? err.code : 'INVALID_URL');
    }
    const host = bareHost(target.hostname);
    // A literal IP is dialled without any lookup, so it is judged here; names are judged by
    // guardedLookup at connect time, on the addresses actually dialled.
    if (!opts.allowPrivateTargets && isIP(host) && !isAllowedAddress(host)) return failed('TARGET_NOT_ALLOWED');

    const body = Buffer.from(req.body, 'utf8'); // the exact bytes the signature covers (SPEC 5.3)
    const options: http.RequestOptions = {
      protocol: target.protocol,
      hostname: host,
      port: target.port || undefined,
      path: target.pathname + target.search,
      method: req.method ?? 'POST',
      headers: { ...withoutOwnedHeaders(req.headers), 'Content-Length': String(body.length) },
      agent: agentFor(target),
    };
    if (target.username || target.password) {
      options.auth = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    }
    if (!opts.allowPrivateTargets) options.lookup = guardedLookup;

    let request: http.ClientRequest;
    try {
      request = (target.protocol === 'https:' ? https : http).request(options);
    } catch (err) {
      // Node validates header names and values synchronously (ERR_INVALID_CHAR, ...).
      return failed((err as NodeJS.ErrnoException).code ?? 'INVALID_REQUEST');
    }
    return readResponse(request, body, { started, timeoutMs, maxResponseBytes });
  }

  function close(): void {
    closed = true;
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
  }

  return { send, close };
}

function withoutOwnedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}
