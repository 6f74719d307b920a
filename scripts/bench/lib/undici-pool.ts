// The webhook client on undici (Node's own HTTP/1.1 client), for `npm run bench -- webhook-client`
// only: measured against the hand-written pool (src/worker/webhook/client/http1-pool.ts), it cost
// about a third more CPU per exchange, and it differs on the wire contract
// (test/unit/worker/http-client.wire.test.ts): an unsolicited 100 Continue is a bad response, a
// POST is never resent on a new socket, and a pool opens a socket more than the load needs after
// each answer (its client is busy for one turn). Kept here so the comparison can be run again.
// An Agent holds a keep-alive Pool per origin, each socket carrying one exchange at a time. Around it:
// - the socket is dialled through the caller's lookup (buildConnector passes it to net/tls.connect),
//   so the SSRF check applies to the address actually dialled; TLS sessions are resumed per host;
// - one timer bounds the whole exchange (queueing, connect, request, answer): undici's own header
//   and body timeouts are off;
// - the answer is read to maxResponseBytes, then the exchange is aborted, which destroys its
//   socket (docs/api.md#limits: keep the first bytes, do not drain the rest);
// - redirects are never followed (no interceptor is installed: a 3xx is just an answer);
// - a request is sent once more on a new socket when a reused one closed before a byte of answer
//   (undici retries only idempotent requests it had not written yet).
// The exchange is an undici dispatch handler, not `request()`: no body stream, no promise per
// chunk, the raw header list read only as far as needed.
import type net from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { errorCode, parseRetryAfter, decodeUtf8, type WebhookResult } from '../../../src/worker/webhook/client/http-response.js';
import { bareHost, isAllowedAddress, isIpLiteral, parseTargetUrl } from '../../../src/domain/webhook/target-policy.js';
import { guardedLookup } from '../../../src/worker/webhook/client/guarded-lookup.js';
import { checkClientOptions, type WebhookClient, type WebhookClientOptions, type WebhookRequest } from '../../../src/worker/webhook/client/http-client.js';

export interface PoolOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** report the response headers (otherwise only Retry-After is read) */
  headers: boolean;
  /** sockets per origin; further exchanges wait for one */
  maxSockets: number;
  /** an idle socket is closed after this (or the server's Keep-Alive timeout less 1 s) */
  idleMs: number;
  /** resolves names for the socket (the SSRF guard); the system resolver otherwise */
  lookup?: net.LookupFunction;
  /** trusted roots for TLS (Node's bundled ones otherwise) */
  ca?: string | string[];
}

export interface Exchange {
  /** scheme, host and port: the pool's key */
  origin: string;
  method: 'POST' | 'PUT';
  /** path and query */
  path: string;
  /** [name, value, ...], already checked (http-client.ts) */
  headers: string[];
  body: Buffer;
}

export interface Pools {
  /** one exchange; never rejects */
  exchange(ex: Exchange, started: number): Promise<WebhookResult>;
  /** destroys every socket; exchanges under way or waiting end with CLIENT_CLOSED */
  close(): void;
}

// a server's Keep-Alive timeout is cut by this much, so we stop using a socket before it does
const KEEP_ALIVE_SLACK_MS = 1_000;
// TLS sessions remembered (one per host name)
const MAX_TLS_SESSIONS = 256;

export function createPools(opts: PoolOptions): Pools {
  const connect = buildConnector({
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    timeout: opts.timeoutMs,
    noDelay: true,
    maxCachedSessions: MAX_TLS_SESSIONS,
  } as buildConnector.BuildOptions);
  const agent = new Agent({
    connect,
    connections: Number.isFinite(opts.maxSockets) ? opts.maxSockets : null,
    pipelining: 1,
    keepAliveTimeout: opts.idleMs,
    keepAliveMaxTimeout: opts.idleMs,
    keepAliveTimeoutThreshold: KEEP_ALIVE_SLACK_MS,
    headersTimeout: 0,
    bodyTimeout: 0,
    // what llhttp allows by default (and Node's http): a head of 16 KiB
    maxHeaderSize: 16 * 1024,
  });
  let closed = false;

  /** one exchange's handler: the answer is gathered here and settled once */
  class Handler implements Dispatcher.DispatchHandler {
    private abort: ((err?: Error) => void) | undefined;
    private settled = false;
    /** a byte of an answer arrived (the request was surely received) */
    private answering = false;
    private retried = false;
    private status: number | undefined;
    private headers: Record<string, string> | undefined;
    private retryAfterMs: number | undefined;
    private chunks: Buffer[] = [];
    private received = 0;
    private readonly timer: NodeJS.Timeout;

    constructor(
      private readonly ex: Exchange,
      private readonly started: number,
      private readonly resolve: (r: WebhookResult) => void,
    ) {
      // one timer for everything: a server that accepts and never answers, or trickles its body
      // forever, is cut here and its socket destroyed (never returned to the pool)
      this.timer = setTimeout(() => this.end(false, 'TIMEOUT'), Math.max(0, opts.timeoutMs - (performance.now() - started)));
    }

    dispatch(): void {
      const { origin, method, path, headers, body } = this.ex;
      agent.dispatch({ origin, method, path, headers, body }, this);
    }

    /** settles the exchange; unless the answer ended well, its socket goes */
    private end(ok: boolean, error?: string, keepSocket = false): void {
      if (this.settled) return;
      this.settled = true;
      clearTimeout(this.timer);
      const result: WebhookResult = { ok, responseBody: decodeUtf8(this.chunks, this.received), latencyMs: performance.now() - this.started };
      if (this.status !== undefined) result.status = this.status;
      if (this.headers !== undefined) result.headers = this.headers;
      if (this.retryAfterMs !== undefined) result.retryAfterMs = this.retryAfterMs;
      if (error !== undefined) result.error = error;
      this.resolve(result);
      // a queued exchange gets its abort when it starts, and is ended there (onConnect)
      if (!keepSocket) this.abort?.();
    }

    /** the answer has been read (to its end or to the byte cap) */
    private answered(keepSocket: boolean): void {
      const status = this.status!;
      // docs/webhooks.md: redirects are never followed; a 3xx is a failed attempt like any non-2xx
      this.end(status >= 200 && status < 300, status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : undefined, keepSocket);
    }

    onConnect(abort: (err?: Error) => void): void {
      this.abort = abort;
      if (this.settled) abort();
    }

    onResponseStarted(): void {
      this.answering = true;
    }

    onHeaders(status: number, raw: Buffer[]): boolean {
      if (status < 200) return true; // an interim answer (103 Early Hints): the final one follows
      this.status = status;
      if (opts.headers) {
        const headers: Record<string, string> = {};
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i].toString('latin1').toLowerCase();
          const value = raw[i + 1].toString('latin1');
          headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
        }
        this.headers = headers;
        this.retryAfterMs = parseRetryAfter(headers['retry-after']);
      } else {
        for (let i = 0; i < raw.length; i += 2) {
          if (raw[i].length === 11 && raw[i].toString('latin1').toLowerCase() === 'retry-after') {
            this.retryAfterMs = parseRetryAfter(raw[i + 1].toString('latin1'));
            break;
          }
        }
      }
      return true;
    }

    onData(chunk: Buffer): boolean {
      if (this.settled) return true;
      const room = opts.maxResponseBytes - this.received;
      if (chunk.length > room) {
        // docs/api.md#limits: keep the first bytes, then drop the connection rather than drain it
        if (room > 0) this.chunks.push(chunk.subarray(0, room));
        this.received += room;
        this.answered(false);
        return true;
      }
      this.chunks.push(chunk);
      this.received += chunk.length;
      return true;
    }

    onComplete(): void {
      this.answered(true);
    }

    onError(err: Error): void {
      if (this.settled) return;
      const code = (err as { code?: string }).code;
      if (closed || code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') return this.end(false, 'CLIENT_CLOSED');
      if (code === 'UND_ERR_SOCKET' && !this.answering && !this.retried && reusedSocket(err)) {
        // a reused socket the server had closed as we wrote (not a byte of answer came): once
        // more, on a new one
        this.retried = true;
        this.abort = undefined;
        return this.dispatch();
      }
      this.end(false, this.errorOf(err, code));
    }

    private errorOf(err: Error, code: string | undefined): string {
      if (code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW') return 'RESPONSE_HEAD_TOO_LARGE';
      if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'TIMEOUT';
      if (code?.startsWith('HPE_') || err.message === 'bad response' || err.message === 'bad upgrade') return 'INVALID_RESPONSE';
      if (code === 'UND_ERR_SOCKET') return this.answering ? 'RESPONSE_ABORTED' : 'ECONNRESET';
      if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'INVALID_RESPONSE';
      return errorCode(err);
    }
  }

  return {
    exchange(ex, started) {
      if (closed) return Promise.resolve({ ok: false, responseBody: '', latencyMs: performance.now() - started, error: 'CLIENT_CLOSED' });
      return new Promise((resolve) => new Handler(ex, started, resolve).dispatch());
    },
    close() {
      closed = true;
      void agent.destroy().catch(() => {});
    },
  };
}

/**
 * The closed socket had read bytes before this exchange's answer began: answers to earlier
 * exchanges, so it was a reused one. (A plain socket counts HTTP bytes only; a TLS socket counts
 * those of the handshake too, so a fresh TLS socket closed after its handshake is retried as well.)
 */
function reusedSocket(err: Error): boolean {
  const info = (err as { socket?: { bytesRead?: number } }).socket;
  return (info?.bytesRead ?? 0) > 0;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const OWNED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

/** the same WebhookClient as createWebhookClient, on undici: routes cached per URL, headers checked the same way */
export function createUndiciWebhookClient(opts: WebhookClientOptions): WebhookClient {
  checkClientOptions(opts);
  const pools = createPools({
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxResponseBytes: opts.maxResponseBytes ?? 4096,
    headers: opts.responseHeaders ?? true,
    maxSockets: opts.maxSockets ?? Infinity,
    idleMs: 4_000,
    lookup: opts.allowPrivateTargets ? undefined : guardedLookup,
    ca: opts.ca,
  });
  const routes = new Map<string, { origin: string; path: string; authorization?: string; refused: boolean } | string>();
  function routeOf(url: string) {
    let route = routes.get(url);
    if (route !== undefined) return route;
    try {
      const target = parseTargetUrl(url);
      const hostname = bareHost(target.hostname);
      route = {
        origin: target.origin,
        path: (target.pathname || '/') + target.search,
        refused: !opts.allowPrivateTargets && isIpLiteral(hostname) && !isAllowedAddress(hostname),
      };
      if (target.username || target.password)
        route.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    } catch {
      route = 'INVALID_URL';
    }
    routes.set(url, route);
    return route;
  }
  function headersOf(req: WebhookRequest, authorization: string | undefined): string[] | string {
    const out: string[] = [];
    let auth = false;
    for (const name in req.headers) {
      const value = req.headers[name];
      if (!TOKEN.test(name)) return 'ERR_INVALID_HTTP_TOKEN';
      if (BAD_VALUE.test(value)) return 'ERR_INVALID_CHAR';
      const lower = name.toLowerCase();
      if (OWNED_HEADERS.has(lower)) continue;
      if (lower === 'authorization') auth = true;
      out.push(name, value);
    }
    if (authorization && !auth) out.push('Authorization', authorization);
    return out;
  }
  return {
    async send(req) {
      const started = performance.now();
      const failed = (error: string): WebhookResult => ({ ok: false, responseBody: '', latencyMs: performance.now() - started, error });
      const route = routeOf(req.url);
      if (typeof route === 'string') return failed(route);
      if (route.refused) return failed('TARGET_NOT_ALLOWED');
      const headers = headersOf(req, route.authorization);
      if (typeof headers === 'string') return failed(headers);
      return pools.exchange({ origin: route.origin, method: req.method ?? 'POST', path: route.path, headers, body: Buffer.from(req.body, 'utf8') }, started);
    },
    close: () => pools.close(),
  };
}
