// The webhook client's connections: a keep-alive pool per origin of plain TCP or TLS sockets,
// each carrying one exchange at a time (no pipelining), answers read by http1-parser.ts. In
// place of node:http's Agent and ClientRequest, which cost three times the CPU per exchange
// (`npm run bench -- webhooks`); what they did for us is done here: the socket is dialled through
// the caller's lookup (the SSRF check on the address actually dialled), one timer bounds the whole
// exchange (queueing, connect, request, answer), an answer past the byte cap or framed wrongly
// costs its socket, and a socket is reused only after a complete, well-framed answer.
import net from 'node:net';
import tls from 'node:tls';
import { isIP } from 'node:net';
import { ResponseError, ResponseParser, type ParserEvents, type ResponseHead } from './http1-parser.js';
import { errorCode, parseRetryAfter, decodeUtf8, type WebhookResult } from './http-response.js';

export interface Endpoint {
  /** the pool's key: scheme, host and port */
  origin: string;
  https: boolean;
  /** bare host (IPv6 without brackets) */
  hostname: string;
  port: number;
}

export interface PoolOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** report the response headers (otherwise only Retry-After is read) */
  headers: boolean;
  /** sockets per origin; further exchanges wait for one */
  maxSockets: number;
  /** an idle socket is closed after this (or the server's shorter Keep-Alive timeout) */
  idleMs: number;
  /** resolves names for the socket (the SSRF guard); the system resolver otherwise */
  lookup?: net.LookupFunction;
  /** trusted roots for TLS (Node's bundled ones otherwise) */
  ca?: string | string[];
}

export interface Pools {
  /** one exchange; never rejects */
  exchange(endpoint: Endpoint, request: Buffer, started: number): Promise<WebhookResult>;
  /** destroys every socket; exchanges under way or waiting end with CLIENT_CLOSED */
  close(): void;
}

// pools kept for this many origins; an emptied pool of an origin past it is forgotten
const MAX_POOLS = 256;
// a server's Keep-Alive timeout is cut by this much, so we stop using a socket before it does
const KEEP_ALIVE_SLACK_MS = 1_000;

interface Exchange {
  request: Buffer;
  started: number;
  resolve: (r: WebhookResult) => void;
  timer: NodeJS.Timeout | undefined;
  conn: Conn | undefined;
  settled: boolean;
  /** sent again on a new socket once, when a reused one closed before any answer */
  retried: boolean;
  status?: number;
  headers?: Record<string, string>;
  retryAfterMs?: number;
  chunks: Buffer[];
  received: number;
}

/** a socket of a pool (the class is inside createPools, which it shares state with) */
interface Conn {
  readonly socket: net.Socket;
  ex: Exchange | undefined;
  idleSince: number;
  idleMs: number;
  start(ex: Exchange): void;
  fail(ex: Exchange, error: string): void;
}

interface Pool {
  endpoint: Endpoint;
  /** the last TLS session the origin gave us: a new socket resumes it instead of a full handshake */
  tlsSession?: Buffer;
  idle: Conn[];
  conns: Set<Conn>;
  queue: Exchange[];
}

export function createPools(opts: PoolOptions): Pools {
  const pools = new Map<string, Pool>();
  // what a plain socket reads lands here (onread): reads are handled one at a time, synchronously
  const readBuffer = Buffer.allocUnsafe(16 * 1024);
  let closed = false;
  let sweeper: NodeJS.Timeout | undefined;

  function settle(ex: Exchange, ok: boolean, error?: string): void {
    if (ex.settled) return;
    ex.settled = true;
    clearTimeout(ex.timer);
    const result: WebhookResult = { ok, responseBody: decodeUtf8(ex.chunks, ex.received), latencyMs: performance.now() - ex.started };
    if (ex.status !== undefined) result.status = ex.status;
    if (ex.headers !== undefined) result.headers = ex.headers;
    if (ex.retryAfterMs !== undefined) result.retryAfterMs = ex.retryAfterMs;
    if (error !== undefined) result.error = error;
    ex.resolve(result);
  }

  /** the answer has been read (to its end or to the byte cap) */
  function answered(ex: Exchange): void {
    const status = ex.status!;
    // docs/webhooks.md: redirects are never followed; a 3xx is a failed attempt like any non-2xx
    settle(ex, status >= 200 && status < 300, status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : undefined);
  }

  class Connection implements Conn, ParserEvents {
    readonly socket: net.Socket;
    ex: Exchange | undefined;
    parser: ResponseParser | undefined;
    uses = 0;
    idleSince = 0;
    idleMs = opts.idleMs;
    err: Error | undefined;
    /** the answer went past the byte cap: the socket goes, the rest unread */
    private cut = false;
    /** a byte of an answer to the current exchange has arrived (the request was surely received) */
    private answering = false;

    constructor(readonly pool: Pool) {
      const ep = pool.endpoint;
      const options: net.TcpNetConnectOpts = { host: ep.hostname, port: ep.port, noDelay: true };
      if (opts.lookup) options.lookup = opts.lookup;
      if (ep.https) {
        const socket = tls.connect({
          ...options,
          servername: isIP(ep.hostname) ? undefined : ep.hostname,
          ALPNProtocols: ['http/1.1'],
          ca: opts.ca,
          session: pool.tlsSession,
        });
        // (TLS 1.3 hands sessions over after the handshake, possibly more than one)
        socket.on('session', (session: Buffer) => (pool.tlsSession = session));
        this.socket = socket;
      } else {
        // read into the one buffer of this client's plain sockets, handed to the parser in place:
        // no Buffer allocated and no stream 'data' event per read (the answers are small; a body
        // piece the exchange keeps is copied, body())
        options.onread = { buffer: readBuffer, callback: (n) => (this.onData(readBuffer.subarray(0, n)), true) };
        this.socket = net.connect(options);
      }
      this.socket.setNoDelay(true);
      if (ep.https) this.socket.on('data', (data: Buffer) => this.onData(data));
      this.socket.on('error', (err) => (this.err ??= err));
      this.socket.on('close', () => this.onClose());
      pool.conns.add(this);
    }

    start(ex: Exchange): void {
      this.ex = ex;
      ex.conn = this;
      this.uses++;
      this.cut = false;
      this.answering = false;
      this.parser = new ResponseParser(this);
      this.socket.write(ex.request);
    }

    head(h: ResponseHead): void {
      const ex = this.ex!;
      ex.status = h.status;
      if (h.keepAliveMs !== undefined) this.idleMs = Math.min(opts.idleMs, Math.max(0, h.keepAliveMs - KEEP_ALIVE_SLACK_MS));
      if (opts.headers) {
        const headers: Record<string, string> = {};
        for (let i = 0; i < h.rawHeaders.length; i += 2) {
          const name = h.rawHeaders[i].toLowerCase();
          headers[name] = name in headers ? `${headers[name]}, ${h.rawHeaders[i + 1]}` : h.rawHeaders[i + 1];
        }
        ex.headers = headers;
        ex.retryAfterMs = parseRetryAfter(headers['retry-after']);
      } else {
        for (let i = 0; i < h.rawHeaders.length; i += 2) {
          if (h.rawHeaders[i].length === 11 && h.rawHeaders[i].toLowerCase() === 'retry-after') {
            ex.retryAfterMs = parseRetryAfter(h.rawHeaders[i + 1]);
            break;
          }
        }
      }
    }

    body(chunk: Buffer): void {
      const ex = this.ex;
      if (!ex || this.cut) return;
      const room = opts.maxResponseBytes - ex.received;
      if (chunk.length > room) {
        // docs/api.md#limits: keep the first bytes, then drop the connection rather than drain it
        if (room > 0) ex.chunks.push(Buffer.from(chunk.subarray(0, room)));
        ex.received += room;
        this.cut = true;
        return;
      }
      // a plain socket's reads share one buffer (onread), which the next read overwrites
      ex.chunks.push(this.pool.endpoint.https ? chunk : Buffer.from(chunk));
      ex.received += chunk.length;
    }

    private onData(data: Buffer): void {
      const ex = this.ex;
      if (!ex) {
        // bytes nobody asked for: the connection is out of step
        this.socket.destroy();
        return;
      }
      this.answering = true;
      let used: number;
      try {
        used = this.parser!.feed(data);
      } catch (err) {
        this.fail(ex, err instanceof ResponseError ? err.code : errorCode(err));
        return;
      }
      if (this.cut) {
        this.ex = undefined;
        answered(ex);
        this.socket.destroy();
        return;
      }
      if (!this.parser!.done) return;
      this.ex = undefined;
      answered(ex);
      // anything after the answer belongs to no request of ours
      if (used < data.length || !this.parser!.reusable || closed) this.socket.destroy();
      else this.release();
    }

    /** an exchange ends without an answer; the socket goes */
    fail(ex: Exchange, error: string): void {
      this.ex = undefined;
      settle(ex, false, error);
      this.socket.destroy();
    }

    /** back to the pool: the next waiting exchange, or idle */
    private release(): void {
      const next = this.pool.queue.shift();
      if (next) return this.start(next);
      this.idleSince = performance.now();
      this.pool.idle.push(this);
      sweep();
    }

    private onClose(): void {
      const pool = this.pool;
      pool.conns.delete(this);
      const i = pool.idle.indexOf(this);
      if (i >= 0) pool.idle.splice(i, 1);
      const ex = this.ex;
      this.ex = undefined;
      if (ex && !ex.settled) {
        if (this.parser!.close())
          answered(ex); // a body delimited by the close
        else if (!this.answering && this.uses > 1 && !ex.retried) {
          // a reused socket the server had closed as we wrote (not a byte of answer came): once
          // more on a new one
          ex.retried = true;
          ex.conn = undefined;
          dispatch(pool, ex);
        } else settle(ex, false, this.err ? errorCode(this.err) : this.parser!.started ? 'RESPONSE_ABORTED' : 'ECONNRESET');
      }
      // room for a waiting exchange
      if (pool.queue.length > 0 && pool.conns.size < opts.maxSockets) dispatch(pool, pool.queue.shift()!);
      if (pool.conns.size === 0 && pool.queue.length === 0 && pools.size > MAX_POOLS) pools.delete(pool.endpoint.origin);
    }
  }

  function dispatch(pool: Pool, ex: Exchange): void {
    if (closed) return settle(ex, false, 'CLIENT_CLOSED');
    const now = performance.now();
    for (let c = pool.idle.pop(); c; c = pool.idle.pop()) {
      if (now - c.idleSince < c.idleMs) return c.start(ex);
      c.socket.destroy(); // idle too long: the server may be closing it as we write
    }
    if (pool.conns.size < opts.maxSockets) return new Connection(pool).start(ex);
    pool.queue.push(ex);
  }

  /** closes sockets idle past their time, every second while any is idle */
  function sweep(): void {
    if (sweeper) return;
    sweeper = setInterval(() => {
      const now = performance.now();
      let idle = 0;
      for (const pool of pools.values()) {
        for (const c of [...pool.idle]) {
          if (now - c.idleSince >= c.idleMs) c.socket.destroy();
          else idle++;
        }
      }
      if (idle === 0) {
        clearInterval(sweeper);
        sweeper = undefined;
      }
    }, 1000);
    sweeper.unref();
  }

  return {
    exchange(endpoint, request, started) {
      return new Promise((resolve) => {
        const ex: Exchange = { request, started, resolve, timer: undefined, conn: undefined, settled: false, retried: false, chunks: [], received: 0 };
        // one timer for everything: a server that accepts and never answers, or trickles its
        // body forever, is cut here and its socket destroyed (never returned to the pool)
        ex.timer = setTimeout(
          () => {
            const conn = ex.conn;
            if (conn && conn.ex === ex) conn.fail(ex, 'TIMEOUT');
            else {
              const pool = pools.get(endpoint.origin);
              const i = pool ? pool.queue.indexOf(ex) : -1;
              if (i >= 0) pool!.queue.splice(i, 1);
              settle(ex, false, 'TIMEOUT');
            }
          },
          Math.max(0, opts.timeoutMs - (performance.now() - started)),
        );
        let pool = pools.get(endpoint.origin);
        if (!pool) pools.set(endpoint.origin, (pool = { endpoint, idle: [], conns: new Set(), queue: [] }));
        dispatch(pool, ex);
      });
    },
    close() {
      closed = true;
      clearInterval(sweeper);
      for (const pool of pools.values()) {
        for (const ex of pool.queue.splice(0)) settle(ex, false, 'CLIENT_CLOSED');
        for (const c of pool.conns) {
          if (c.ex) c.fail(c.ex, 'CLIENT_CLOSED');
          else c.socket.destroy();
        }
      }
      pools.clear();
    },
  };
}
