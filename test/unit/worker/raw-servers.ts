// Raw TCP (and TLS) servers on 127.0.0.1 for the webhook client's wire tests: they read requests
// themselves and answer with whatever bytes a test writes, so the wire is the subject. Closed after
// each test (onTestFinished).
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { onTestFinished } from 'vitest';

export interface RawRequest {
  /** request line and header lines, without the blank line */
  head: string;
  requestLine: string;
  /** [name, value] in the order received */
  headers: [string, string][];
  body: Buffer;
  /** every byte of the request as received */
  raw: Buffer;
  /** the connection it came on */
  conn: RawConn;
}

export interface RawConn {
  socket: net.Socket;
  /** 1-based, in order of acceptance */
  id: number;
  /** requests read on this connection so far, this one included */
  requests: number;
  /** resolves when the server side of the socket has closed */
  closed: Promise<void>;
}

export interface RawServer {
  url: string;
  port: number;
  /** connections accepted (for TLS: handshakes completed) */
  connections: () => number;
  requests: RawRequest[];
  conns: RawConn[];
}

export type RawHandler = (req: RawRequest, conn: RawConn) => void;

export interface RawServerOptions {
  /** serve TLS with these options instead of plain TCP */
  tls?: tls.TlsOptions;
  /** called on each new connection, before any request is read */
  onConnection?: (conn: RawConn) => void;
}

/** A server calling `handler` once per complete request (head plus Content-Length body). */
export async function startRawServer(handler: RawHandler, opts: RawServerOptions = {}): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const conns: RawConn[] = [];
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    const conn: RawConn = {
      socket,
      id: conns.length + 1,
      requests: 0,
      closed: new Promise<void>((resolve) => socket.once('close', () => resolve())),
    };
    conns.push(conn);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    opts.onConnection?.(conn);
    let buffered = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.toString('latin1', 0, end);
        const [requestLine, ...lines] = head.split('\r\n');
        const headers = lines.map((l): [string, string] => {
          const colon = l.indexOf(':');
          return [l.slice(0, colon), l.slice(colon + 1).trim()];
        });
        const cl = headers.find(([n]) => n.toLowerCase() === 'content-length');
        const length = cl ? Number(cl[1]) : 0;
        const total = end + 4 + length;
        if (buffered.length < total) return;
        const raw = buffered.subarray(0, total);
        buffered = buffered.subarray(total);
        conn.requests++;
        const req: RawRequest = { head, requestLine, headers, body: raw.subarray(end + 4), raw, conn };
        requests.push(req);
        if (socket.destroyed) return;
        handler(req, conn);
      }
    });
  };
  const server = opts.tls ? tls.createServer(opts.tls, onSocket) : net.createServer(onSocket);
  // the TCP sockets, TLS ones included, to destroy at the end
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => sockets.delete(s));
  });
  if (opts.tls) server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        for (const c of conns) c.socket.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, connections: () => conns.length, requests, conns };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes the pieces one by one, `delayMs` apart (separate TCP segments: the server sets no delay). */
export async function writeSlowly(socket: net.Socket, pieces: (string | Buffer)[], delayMs: number): Promise<void> {
  for (const piece of pieces) {
    if (socket.destroyed) return;
    socket.write(typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece);
    await sleep(delayMs);
  }
}

/** A complete answer with a Content-Length body. */
export function answer(body = 'ok', status = '200 OK', headers: string[] = []): string {
  return `HTTP/1.1 ${status}\r\n${headers.map((h) => `${h}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n\r\n${body}`;
}
