// The Node response class of the API's HTTP server (main.ts passes it as the server's
// ServerResponse). The edge (headers.ts here) gives every answer a request id and the CORS headers; set
// with setHeader() before the handler runs, they cost a tenth of a GET (`npm run bench -- api`:
// each setHeader validates and files its header, and a response that has any takes Node's slow
// writeHead path, which files the adapter's own headers one by one again). Here the edge only
// notes them, and they join the adapter's header object when the head is written. The answer's
// own headers win, as they did over the preset ones.
//
// It also gives each answer ONE write to its socket. Node's end(body) writes the head and body
// as one string, then an empty string that carries the finish callback, both while the socket is
// corked: uncorking hands the two to the socket's _writev, which gathers them for a writev of
// two buffers where one write of the string would do. A socket this class answers on sends such
// a pair as the one write (CPU per `GET /devices/{id}`, one process alternating with and without:
// a median 51 to 52 µs against 55 to 63; about 2.5 µs of a bare node:http answer's 20). Every
// other gathering of writes (a streamed body, a WebSocket) goes to Node's _writev unchanged; a 204
// (an empty body) was one write already.
import { ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

const REQUEST_ID = 'x-request-id';
const ALLOW_ORIGIN = 'access-control-allow-origin';
const EXPOSE = 'access-control-expose-headers';
const VARY = 'vary';
const CONTENT_LENGTH = 'content-length';

/** what Writable hands _writev: the buffered writes, each with its own callback */
type Buffered = { chunk: string | Buffer; encoding: BufferEncoding; callback: (err?: Error | null) => void }[];
type Writes = Socket & {
  _write(chunk: string | Buffer, encoding: BufferEncoding, cb: (err?: Error | null) => void): void;
  _writev(chunks: Buffered, cb: (err?: Error | null) => void): void;
};

/** a socket's _writev that sends [data, ''] (end()'s pair) as one write of data */
function writevOnce(this: Writes, chunks: Buffered, cb: (err?: Error | null) => void): void {
  // cb calls every buffered write's callback (the empty one carries end()'s finish)
  if (chunks.length === 2 && chunks[1].chunk.length === 0) return this._write(chunks[0].chunk, chunks[0].encoding, cb);
  return (Object.getPrototypeOf(this) as Writes)._writev.call(this, chunks, cb);
}

export class EdgeResponse extends ServerResponse {
  /** the request id to send, noted by the edge (undefined: nothing to add) */
  edgeRequestId: string | undefined = undefined;
  /** Access-Control-Expose-Headers to send with Allow-Origin *, or undefined (a preflight has its own) */
  edgeExpose: string | undefined = undefined;
  /** Access-Control-Allow-Origin sent with edgeExpose: `*`, or the request's origin when it is listed */
  edgeOrigin = '*';
  /** HEARTH_CORS_ORIGINS is a list: the answer depends on Origin, so caches must key on it */
  edgeVary = false;

  override assignSocket(socket: Socket): void {
    const s = socket as Writes;
    if (s._writev !== writevOnce && typeof s._write === 'function' && typeof s._writev === 'function') s._writev = writevOnce;
    super.assignSocket(socket);
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const requestId = this.edgeRequestId;
    if (requestId === undefined) return super.writeHead(statusCode, reason as string, headers);
    this.edgeRequestId = undefined;
    const expose = this.edgeExpose;
    const given = typeof reason === 'string' ? headers : reason;
    if (!given || Array.isArray(given)) {
      // rare (an implicit head, a header list): filed like any preset header
      if (!this.hasHeader(REQUEST_ID)) this.setHeader(REQUEST_ID, requestId);
      if (expose !== undefined) {
        if (!this.hasHeader(ALLOW_ORIGIN)) this.setHeader(ALLOW_ORIGIN, this.edgeOrigin);
        if (!this.hasHeader(EXPOSE)) this.setHeader(EXPOSE, expose);
      }
      if (this.edgeVary) this.setHeader(VARY, withOrigin(this.getHeader(VARY)));
      return typeof reason === 'string' ? super.writeHead(statusCode, reason, given) : super.writeHead(statusCode, given);
    }
    // a copy: the object may be shared (a constant a handler answered with)
    const all: OutgoingHttpHeaders = {};
    let hasId = false;
    let hasOrigin = false;
    let hasExpose = false;
    for (const name in given) {
      const n = name.length;
      // a 204 has no Content-Length (RFC 9110 §8.6); @hono/node-server adds 0 to an empty answer (no-content.ts)
      if (n === CONTENT_LENGTH.length && statusCode === 204 && name.toLowerCase() === CONTENT_LENGTH) continue;
      all[name] = given[name];
      if (n === REQUEST_ID.length || n === ALLOW_ORIGIN.length || n === EXPOSE.length) {
        const lower = name.toLowerCase();
        if (lower === REQUEST_ID) hasId = true;
        else if (lower === ALLOW_ORIGIN) hasOrigin = true;
        else if (lower === EXPOSE) hasExpose = true;
      }
    }
    if (!hasId && !this.hasHeader(REQUEST_ID)) all[REQUEST_ID] = requestId;
    if (expose !== undefined) {
      if (!hasOrigin && !this.hasHeader(ALLOW_ORIGIN)) all[ALLOW_ORIGIN] = this.edgeOrigin;
      if (!hasExpose && !this.hasHeader(EXPOSE)) all[EXPOSE] = expose;
    }
    if (this.edgeVary) {
      let name: string = VARY;
      for (const n in all) if (n.toLowerCase() === VARY) name = n;
      all[name] = withOrigin(all[name] ?? this.getHeader(VARY));
      if (name !== VARY && this.hasHeader(VARY)) this.removeHeader(VARY);
    }
    return typeof reason === 'string' ? super.writeHead(statusCode, reason, all) : super.writeHead(statusCode, all);
  }
}

/** a Vary value that includes Origin */
function withOrigin(vary: OutgoingHttpHeader | undefined): string {
  const text = vary === undefined ? '' : Array.isArray(vary) ? vary.join(', ') : String(vary);
  if (text === '') return 'Origin';
  return /(^|,)\s*(origin|\*)\s*(,|$)/i.test(text) ? text : `${text}, Origin`;
}
