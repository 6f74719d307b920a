// Requests Node's HTTP parser refuses before any route sees them (the server's 'clientError'):
// answered with the API's error body (API.md §0) instead of Node's empty one, then closed.
//   431 HEADERS_TOO_LARGE   the head is over Node's limit (16 KiB, --max-http-header-size)
//   408 REQUEST_TIMEOUT     no complete head within the connect timeout (API.md §13)
//   400 BAD_REQUEST         anything else the parser cannot read (a broken request line, ...)
// On a kept-alive connection whose previous request is still being answered (pipelining), the
// refusal follows that answer; a connection that cannot be written is only closed.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Reason } from '../domain/errors.js';

function answerOf(code: string | undefined): [status: 400 | 408 | 431, reason: Reason, message: string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'HEADERS_TOO_LARGE', 'the request head is larger than the server accepts'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'REQUEST_TIMEOUT', 'the request head did not arrive in time'];
    default:
      return [400, 'BAD_REQUEST', 'the request is not valid HTTP/1.1'];
  }
}

export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // Node's own field for the answer that holds the socket now
  const busy = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (busy && !busy.writableFinished) {
    busy.once('finish', () => refuse(err, socket));
    busy.once('close', () => {
      if (!busy.writableFinished) socket.destroy();
    });
    return;
  }
  refuse(err, socket);
}

function refuse(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = answerOf(err.code);
  const body = JSON.stringify({ reason, data: { error: message, code: err.code ?? null } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
  // a peer that does not read its answer does not keep the socket
  socket.once('error', () => socket.destroy());
  setTimeout(() => socket.destroy(), 5000).unref();
}
