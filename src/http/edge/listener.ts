// The API's request listener (main.ts): @hono/node-server's getRequestListener, with a shorter way
// for the commonest request, a GET answered with a body in hand (JSON, text, bytes). For every
// request the adapter parses `new URL(scheme://host + target)` to make the request's URL, adds a
// 'close' listener to the response (to abort the request's signal should the client go away),
// runs two async functions, and scans the answer's headers for a Content-Length: a tenth of a
// `GET /devices/{id}` with Hono's own work (`npm run bench -- api`). Here such a GET gets a
// request whose URL is the same text built without parsing (only when it is certain to be what
// the parser would write, else the adapter's way: simpleUrl below), whose signal and full WHATWG
// Request are made only when a handler asks for them, and its answer is written straight out.
// A PUT whose body has a Content-Length (`PUT /devices/{id}/event`, the HTTP way in of device
// events: the adapter's part was about 3% of its CPU, `npm run bench -- webhooks`, issue #26) takes
// the same way, and its answer is written straight out only once its body has been read to its
// end (the handler read it): nothing is left to drain. An answer made before that (a refusal that
// never read the body) goes to the adapter, which drains what is left as it always does.
// Everything else goes to the adapter: other methods, a streamed body (its limit is counted as
// it is read), an unusual target or Host, a stream, a null body (204, 304), an error; an answer
// already made is handed to it to write (`pending`), so nothing is run twice.
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';

type Env = { incoming: IncomingMessage; outgoing: ServerResponse };
type Fetch = (request: Request, env: Env) => Response | Promise<Response>;
/** what the adapter's lightweight Response keeps of an answer made with a body in hand */
type Cached = [status: number, body: unknown, headers: unknown];

/** an answer this listener made, for the adapter to write */
const pending = Symbol('pending answer');
type Incoming = IncomingMessage & { [pending]?: Response | Promise<Response> };

export function createRequestListener(fetch: Fetch): RequestListener {
  // created first: it puts its lightweight Request and Response in place as the globals
  const adapter = getRequestListener((request, bindings) => {
    const env = bindings as Env;
    const incoming = env.incoming as Incoming;
    const made = incoming[pending];
    if (made === undefined) return fetch(request, env);
    incoming[pending] = undefined;
    return made;
  });
  // for a request whose body has been read to its end already: the adapter's drain would wait
  // for an 'end' that has been and gone, then close the connection
  const afterBody = getRequestListener(
    (request, bindings) => {
      const incoming = (bindings as Env).incoming as Incoming;
      const made = incoming[pending]!;
      incoming[pending] = undefined;
      return made;
    },
    { autoCleanupIncoming: false },
  );
  const cache = cacheKeyOf();
  // an adapter that keeps its answers otherwise: its way for every request
  if (cache === undefined) return adapter as RequestListener;
  const LightRequest = lightRequestClass();

  const handOver = (incoming: Incoming, outgoing: ServerResponse, made: Response | Promise<Response>): void => {
    incoming[pending] = made;
    void (incoming.method !== 'GET' && incoming.readableEnded ? afterBody : adapter)(incoming, outgoing);
  };

  const writeOut = (incoming: Incoming, outgoing: ServerResponse, res: Response): void => {
    const cached = (res as unknown as Record<symbol, Cached | undefined>)[cache];
    // a body not read to its end: the adapter drains it
    if (cached === undefined || (incoming.method !== 'GET' && !incoming.readableEnded)) return handOver(incoming, outgoing, res);
    const [status, body, headers] = cached;
    // headers given as a plain object (what Hono's c.json() and c.body() pass): anything else is the adapter's to file
    if (
      (typeof body !== 'string' && !(body instanceof Uint8Array)) ||
      (headers !== undefined && (typeof headers !== 'object' || headers === null || headers instanceof Headers || Array.isArray(headers)))
    )
      return handOver(incoming, outgoing, res);
    // what the adapter writes (responseViaCache): its default type, a Content-Length unless given
    let out: OutgoingHttpHeaders;
    let length = false;
    if (headers === undefined) out = { 'content-type': 'text/plain; charset=UTF-8' };
    else {
      out = headers as OutgoingHttpHeaders;
      for (const name in out) {
        if (name.length === 14 && name.toLowerCase() === 'content-length') {
          length = true;
          break;
        }
      }
    }
    if (!length) out['Content-Length'] = typeof body === 'string' ? Buffer.byteLength(body) : (body as Uint8Array).byteLength;
    outgoing.writeHead(status, out);
    outgoing.end(body);
  };
  // an answer that cannot be written (not a Response, headers that refuse a Content-Length or
  // are invalid) fails this request alone, never the listener
  const write = (incoming: Incoming, outgoing: ServerResponse, res: Response): void => {
    try {
      writeOut(incoming, outgoing, res);
    } catch (err) {
      failedWrite(err, outgoing);
    }
  };

  return (incoming: Incoming, outgoing) => {
    const method = incoming.method;
    const url = method === 'GET' || (method === 'PUT' && sizedBody(incoming)) ? connectionUrl(incoming) : undefined;
    if (url === undefined) return void adapter(incoming, outgoing);
    let res: Response | Promise<Response>;
    try {
      res = fetch(new LightRequest(url, method!, incoming, outgoing) as unknown as Request, { incoming, outgoing });
    } catch (err) {
      // the adapter's answer to a fetch that threw (a 500)
      return handOver(incoming, outgoing, Promise.reject(err));
    }
    if (res instanceof Promise)
      res.then(
        (r) => write(incoming, outgoing, r),
        (err: unknown) => handOver(incoming, outgoing, Promise.reject(err)),
      );
    else write(incoming, outgoing, res);
  };
}

/** a body framed by its Content-Length (judged against the limit from it), not streamed */
function sizedBody(incoming: IncomingMessage): boolean {
  const h = incoming.headers;
  return h['content-length'] !== undefined && h['transfer-encoding'] === undefined;
}

/** what the adapter does when writing an answer failed (handleResponseError) */
function failedWrite(e: unknown, outgoing: ServerResponse): void {
  const err = e instanceof Error ? e : new Error('unknown error', { cause: e });
  console.error(e);
  try {
    if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
    outgoing.end(`Error: ${err.message}`);
  } catch {
    // not even that could be written: the connection goes (below)
  }
  outgoing.destroy(err);
}

/**
 * The symbol under which the adapter's lightweight Response keeps [status, body, headers] (it
 * does not export it): found on an answer made the way Hono makes them. Undefined if this
 * version of the adapter keeps answers otherwise.
 */
function cacheKeyOf(): symbol | undefined {
  const probe = new Response('probe', { status: 201, headers: { 'x-probe': '1' } }) as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(probe)) {
    const v = probe[key];
    if (Array.isArray(v) && v.length === 3 && v[0] === 201 && v[1] === 'probe' && (v[2] as Record<string, string>)?.['x-probe'] === '1') return key;
  }
  return undefined;
}

// ---- the URL: the adapter's text, without parsing it ----

const urlOfConnection = Symbol('url of the connection');
type Connection = { [urlOfConnection]?: { target: string | undefined; host: string | undefined; url: string | undefined } };

/**
 * simpleUrl(incoming), kept on the connection (its socket) for its next request: a device sends
 * the same target with the same Host on each request of its connection, and the checks below
 * cost about half a microsecond of CPU a request (a micro-benchmark of simpleUrl). The answer
 * depends only on the target, the Host and the connection's scheme, so it is reused while the
 * first two are the same text.
 */
function connectionUrl(incoming: IncomingMessage): string | undefined {
  const target = incoming.url;
  const host = incoming.headers.host;
  const socket = incoming.socket as (IncomingMessage['socket'] & Connection) | null;
  const known = socket?.[urlOfConnection];
  if (known !== undefined && known.target === target && known.host === host) return known.url;
  const url = simpleUrl(incoming);
  if (socket) socket[urlOfConnection] = { target, host, url };
  return url;
}

/** a request target the URL parser writes back unchanged: a path and query of characters it leaves alone */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%]*(\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*)?$/;
/** a dot segment (`.`, `..`, or one spelt with %2e), which the parser resolves */
const DOT_SEGMENT = /\/(\.|%2e)/i;
/** a host the parser writes back unchanged: lower-case labels, a port that is not 0-padded */
const PLAIN_HOST = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*([a-z0-9]([a-z0-9-]*[a-z0-9])?)(:[1-9][0-9]{0,4})?$/;
/** a last label the parser reads as a number, making the host an IPv4 address */
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/;
const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;

/**
 * `scheme://host/target`, exactly as `new URL()` would write it (the adapter's request URL), when
 * that is certain without parsing; else undefined (the adapter then parses, and refuses what it
 * refuses: a missing or malformed Host, a backslash, an absolute-form target).
 */
export function simpleUrl(incoming: IncomingMessage): string | undefined {
  const target = incoming.url;
  const host = incoming.headers.host;
  if (!target || !host || !PLAIN_TARGET.test(target) || DOT_SEGMENT.test(target) || !PLAIN_HOST.test(host) || host.includes('xn--')) return undefined;
  const colon = host.indexOf(':');
  const name = colon === -1 ? host : host.slice(0, colon);
  const https = (incoming.socket as TLSSocket | undefined)?.encrypted === true;
  if (colon !== -1) {
    const port = Number(host.slice(colon + 1));
    // the parser drops a scheme's default port, and refuses one past 65535
    if (port > 65535 || port === (https ? 443 : 80)) return undefined;
  }
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (NUMERIC_LABEL.test(last) && !IPV4.test(name)) return undefined;
  return `${https ? 'https' : 'http'}://${host}${target}`;
}

// ---- the request: what Hono reads at once, the rest when asked ----

/**
 * the body of a full Request, as the adapter makes it (newRequestFromIncoming): the bytes already
 * read (request-body.ts keeps them as rawBody), else the Node request read as it is pulled
 */
function bodyOf(incoming: IncomingMessage & { rawBody?: unknown }): ReadableStream<Uint8Array> {
  const raw = incoming.rawBody;
  if (raw instanceof Buffer)
    return new ReadableStream({
      start(controller) {
        controller.enqueue(raw);
        controller.close();
      },
    });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream({
    async pull(controller) {
      try {
        reader ??= (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

interface Light {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  /** the full WHATWG Request, made on first use */
  full(): Request;
}

const PROPERTIES = [
  'body',
  'bodyUsed',
  'cache',
  'credentials',
  'destination',
  'integrity',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
  'signal',
  'keepalive',
  'duplex',
];
const METHODS = ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'];

/** made once the adapter has put its Request in place as the global one (its prototype is the parent) */
function lightRequestClass(): new (url: string, method: string, incoming: IncomingMessage, outgoing: ServerResponse) => Light {
  class LightRequest implements Light {
    readonly url: string;
    readonly method: string;
    #incoming: IncomingMessage;
    #outgoing: ServerResponse;
    #headers: Headers | undefined = undefined;
    #full: Request | undefined = undefined;

    constructor(url: string, method: string, incoming: IncomingMessage, outgoing: ServerResponse) {
      this.url = url;
      this.method = method;
      this.#incoming = incoming;
      this.#outgoing = outgoing;
    }

    get headers(): Headers {
      if (this.#headers) return this.#headers;
      const raw = this.#incoming.rawHeaders;
      const list: [string, string][] = [];
      // HTTP/2 pseudo-headers (`:path`) are not headers (the adapter leaves them out too)
      for (let i = 0; i < raw.length; i += 2) if (raw[i].charCodeAt(0) !== 58) list.push([raw[i], raw[i + 1]]);
      return (this.#headers = new Headers(list));
    }

    full(): Request {
      if (this.#full) return this.#full;
      // the adapter's abort: the client went away before the answer was written
      const abort = new AbortController();
      const incoming = this.#incoming;
      const outgoing = this.#outgoing;
      const onClose = () => {
        if (incoming.errored) abort.abort(incoming.errored.toString());
        else if (!outgoing.writableFinished) abort.abort('Client connection prematurely closed.');
      };
      if (outgoing.closed) onClose();
      else outgoing.on('close', onClose);
      const init: RequestInit = { method: this.method, headers: this.headers, signal: abort.signal };
      if (this.method !== 'GET') init.body = bodyOf(incoming as IncomingMessage & { rawBody?: unknown });
      return (this.#full = new Request(this.url, init));
    }
  }
  for (const k of PROPERTIES)
    Object.defineProperty(LightRequest.prototype, k, {
      get(this: Light) {
        return (this.full() as unknown as Record<string, unknown>)[k];
      },
    });
  for (const k of METHODS)
    Object.defineProperty(LightRequest.prototype, k, {
      value(this: Light) {
        const full = this.full() as unknown as Record<string, () => unknown>;
        return full[k]();
      },
    });
  // `instanceof Request` holds, as it does for the adapter's lightweight request
  Object.setPrototypeOf(LightRequest.prototype, Request.prototype);
  return LightRequest;
}
