// ResponseParser (src/worker/webhook/http1-parser.ts) on its own: framing, interim answers,
// keep-alive, what is refused, and that the result never depends on how the bytes are split.
import { describe, expect, it } from 'vitest';
import { mulberry32, type Rng } from '../../helpers/random.js';
import { MAX_HEAD_BYTES, ResponseError, ResponseParser, type ResponseHead } from '../../../src/worker/webhook/client/http1-parser.js';

interface Outcome {
  heads: ResponseHead[];
  /** the decoded body, latin1 */
  body: string;
  /** what each feed returned */
  used: number[];
  done: boolean;
  started: boolean;
  reusable: boolean;
  /** what close() returned, when asked to close */
  closed?: boolean;
  /** code of the ResponseError thrown, if any */
  error?: string;
  message?: string;
}

const bytes = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s, 'latin1') : s);

/** Feeds the parts in order (stopping at an error), then close() if asked. */
function parse(parts: (string | Buffer)[], opts: { close?: boolean } = {}): Outcome {
  const heads: ResponseHead[] = [];
  const body: Buffer[] = [];
  const p = new ResponseParser({ head: (h) => heads.push(h), body: (b) => body.push(Buffer.from(b)) });
  const used: number[] = [];
  const out = (): Outcome => ({ heads, body: Buffer.concat(body).toString('latin1'), used, done: p.done, started: p.started, reusable: p.reusable });
  try {
    for (const part of parts) used.push(p.feed(bytes(part)));
    const o = out();
    if (opts.close) o.closed = p.close();
    o.done = p.done;
    return o;
  } catch (err) {
    if (!(err instanceof ResponseError)) throw err;
    return { ...out(), error: err.code, message: err.message };
  }
}

const one = (s: string, opts?: { close?: boolean }) => parse([s], opts);
const errorOf = (s: string | string[]) => parse(Array.isArray(s) ? s : [s]).error;
const headers = (o: Outcome) => o.heads.at(-1)?.rawHeaders;

describe('ResponseParser: Content-Length bodies', () => {
  it('reads a body of exactly Content-Length bytes and keeps the connection', () => {
    const o = one('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello');
    expect(o).toMatchObject({ body: 'hello', done: true, started: true, reusable: true, used: [69] });
    expect(o.heads).toEqual([{ status: 200, rawHeaders: ['Content-Type', 'text/plain', 'Content-Length', '5'], keepAlive: true }]);
  });

  it('ends at the head with Content-Length: 0', () => {
    const o = one('HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n');
    expect(o).toMatchObject({ body: '', done: true, reusable: true });
    expect(o.heads[0].status).toBe(202);
  });

  it('waits for the rest of a body, and close() before it is a cut-short message', () => {
    const o = parse(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhal'], { close: true });
    expect(o).toMatchObject({ body: 'hal', done: false, closed: false, started: true });
  });

  it('keeps header names in their case and values without surrounding blanks', () => {
    const o = one('HTTP/1.1 200 OK\r\nx-LOWER:   spaced  value \t\r\nEmpty:\r\nContent-Length: 0\r\n\r\n');
    expect(headers(o)).toEqual(['x-LOWER', 'spaced  value', 'Empty', '', 'Content-Length', '0']);
  });

  it('takes a status line without a reason phrase, and any 3-digit status', () => {
    expect(one('HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n').heads[0].status).toBe(200);
    expect(one('HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n').heads[0].status).toBe(200);
    expect(one('HTTP/1.1 599 Whatever it says\r\nContent-Length: 0\r\n\r\n').heads[0].status).toBe(599);
  });
});

describe('ResponseParser: chunked bodies', () => {
  it('decodes chunks with extensions, upper- and lower-case hex, and trailers', () => {
    const msg =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5;a=b\r\nhello\r\n' +
      'a ; name="quoted;x"\r\n0123456789\r\n' +
      'A\r\nABCDEFGHIJ\r\n' +
      '1f\r\n' +
      'x'.repeat(31) +
      '\r\n' +
      '1F\r\n' +
      'y'.repeat(31) +
      '\r\n' +
      '0;last\r\nX-Trailer: 1\r\nX-Other: two\r\n\r\n';
    const o = one(msg);
    expect(o).toMatchObject({ done: true, reusable: true, used: [msg.length] });
    expect(o.body).toBe(`hello0123456789ABCDEFGHIJ${'x'.repeat(31)}${'y'.repeat(31)}`);
    // trailers are read past, not reported as headers
    expect(headers(o)).toEqual(['Transfer-Encoding', 'chunked']);
  });

  it('accepts an empty chunked body and leading zeros in sizes', () => {
    expect(one('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')).toMatchObject({ body: '', done: true, reusable: true });
    expect(one('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0003\r\nabc\r\n000\r\n\r\n')).toMatchObject({ body: 'abc', done: true });
  });

  it('takes "chunked" as the last of several codings, case-insensitively', () => {
    expect(one('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n')).toMatchObject({ body: 'hi', done: true, reusable: true });
  });

  it('is not done before the blank line after the last chunk', () => {
    const o = parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-T: 1\r\n'], { close: true });
    expect(o).toMatchObject({ body: 'hi', done: false, closed: false });
  });
});

describe('ResponseParser: bodies delimited by the close', () => {
  it('reads until close() when there is neither Content-Length nor Transfer-Encoding', () => {
    const o = parse(['HTTP/1.1 200 OK\r\nServer: x\r\n\r\nfirst ', 'second'], { close: true });
    expect(o).toMatchObject({ body: 'first second', used: [36, 6], closed: true, done: true, reusable: false });
    expect(o.heads[0].keepAlive).toBe(false);
  });

  it('is not done until the close, and takes every byte fed', () => {
    const p = new ResponseParser({ head: () => {}, body: () => {} });
    expect(p.feed(bytes('HTTP/1.1 200 OK\r\n\r\n'))).toBe(19);
    expect(p.untilClose).toBe(true);
    expect(p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'))).toBe(38); // a body, not a message
    expect(p.done).toBe(false);
    expect(p.close()).toBe(true);
    expect(p.done).toBe(true);
    expect(p.untilClose).toBe(false);
  });

  it('reads a body with an unknown Transfer-Encoding alone (gzip) until the close, never reused', () => {
    const o = parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n\x1f\x8b raw bytes'], { close: true });
    expect(o).toMatchObject({ body: '\x1f\x8b raw bytes', closed: true, done: true, reusable: false });
  });

  it('reads until the close when chunked is not the last coding', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n2\r\nhi\r\n0\r\n\r\n'], { close: true })).toMatchObject({
      body: '2\r\nhi\r\n0\r\n\r\n',
      done: true,
      reusable: false,
    });
  });

  it('close() before any head ends nothing', () => {
    expect(parse([], { close: true })).toMatchObject({ closed: false, done: false, started: false });
    expect(parse(['HTTP/1.1 200 OK\r\nContent-'], { close: true })).toMatchObject({ closed: false, done: false, started: false });
  });
});

describe('ResponseParser: statuses without a body', () => {
  it.each([204, 304])('%i ends at its head even with a Content-Length, and what follows is not taken', (status) => {
    const head = `HTTP/1.1 ${status} X\r\nContent-Length: 5\r\n\r\n`;
    const o = one(`${head}hello`);
    expect(o).toMatchObject({ body: '', done: true, reusable: true, used: [head.length] });
  });

  it('204 with Transfer-Encoding: chunked ends at its head', () => {
    const head = 'HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n';
    expect(one(`${head}0\r\n\r\n`)).toMatchObject({ done: true, used: [head.length] });
  });
});

describe('ResponseParser: interim (1xx) answers', () => {
  const final = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

  it('skips 100 and 103 (with headers) followed by the final answer in the same feed', () => {
    const msg = `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n${final}`;
    const o = one(msg);
    expect(o).toMatchObject({ body: 'ok', done: true, reusable: true, used: [msg.length] });
    expect(o.heads).toEqual([{ status: 200, rawHeaders: ['Content-Length', '2'], keepAlive: true }]);
  });

  it('does not count an interim answer as started; the final one comes in a later feed', () => {
    const heads: ResponseHead[] = [];
    const p = new ResponseParser({ head: (h) => heads.push(h), body: () => {} });
    expect(p.feed(bytes('HTTP/1.1 100 Continue\r\n\r\n'))).toBe(25);
    expect(p.started).toBe(false);
    expect(heads).toHaveLength(0);
    expect(p.feed(bytes('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 2'))).toBe(50);
    expect(p.started).toBe(false);
    expect(p.feed(bytes('00 OK\r\nContent-Length: 2\r\n\r\nok'))).toBe(30);
    expect(p.done).toBe(true);
    expect(heads.map((h) => h.status)).toEqual([200]);
  });

  it('refuses 101 Switching Protocols', () => {
    const o = one('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    expect(o.error).toBe('INVALID_RESPONSE');
    expect(o.heads).toHaveLength(0);
  });
});

describe('ResponseParser: connection reuse', () => {
  it('HTTP/1.0 is reusable only with Connection: keep-alive', () => {
    expect(one('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ done: true, reusable: false });
    expect(one('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ done: true, reusable: true });
    expect(one('HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ reusable: false });
    // without a length an HTTP/1.0 body runs to the close whatever Connection says
    expect(parse(['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody'], { close: true })).toMatchObject({ body: 'body', reusable: false });
  });

  it.each(['Connection: close', 'Connection: Close', 'Connection: foo, close', 'connection: keep-alive\r\nConnection: close'])(
    'HTTP/1.1 with "%s" is not reusable',
    (header) => {
      const o = one(`HTTP/1.1 200 OK\r\n${header}\r\nContent-Length: 0\r\n\r\n`);
      expect(o).toMatchObject({ done: true, reusable: false });
      expect(o.heads[0].keepAlive).toBe(false);
    },
  );

  it('reports Keep-Alive: timeout=N in ms', () => {
    expect(one('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 0\r\n\r\n').heads[0]).toMatchObject({ keepAlive: true, keepAliveMs: 5000 });
    expect(one('HTTP/1.1 200 OK\r\nkeep-alive: max=100, Timeout = 2\r\nContent-Length: 0\r\n\r\n').heads[0].keepAliveMs).toBe(2000);
    expect(one('HTTP/1.1 200 OK\r\nKeep-Alive: max=100\r\nContent-Length: 0\r\n\r\n').heads[0].keepAliveMs).toBeUndefined();
    expect(one('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').heads[0].keepAliveMs).toBeUndefined();
  });

  it('with both Transfer-Encoding and Content-Length, chunked wins and the connection is not reused', () => {
    const msg = 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n';
    const o = one(msg);
    expect(o).toMatchObject({ body: 'hi', done: true, reusable: false, used: [msg.length] });
    expect(o.heads[0].keepAlive).toBe(false);
  });

  it('is not reusable before a head', () => {
    expect(parse([]).reusable).toBe(false);
  });

  // RFC 9112 §6.1: "A server or client that receives an HTTP/1.0 message containing a
  // Transfer-Encoding header field MUST treat the message as if the framing is faulty ... and close
  // the connection after processing the message", whatever Connection says.
  it('never reuses the connection after an HTTP/1.0 answer with Transfer-Encoding (RFC 9112 §6.1)', () => {
    const o = one('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n');
    expect(o.error ?? o.reusable).not.toBe(true);
  });
});

describe('ResponseParser: line ends and leading blank lines', () => {
  it('takes bare LF line ends everywhere, and a mix of both', () => {
    expect(one('HTTP/1.1 200 OK\nA: b\nContent-Length: 2\n\nok')).toMatchObject({ body: 'ok', done: true, reusable: true });
    expect(one('HTTP/1.1 200 OK\r\nA: b\nContent-Length: 2\r\n\nok')).toMatchObject({ body: 'ok', done: true });
    expect(one('HTTP/1.1 200 OK\nA: b\r\nContent-Length: 2\n\r\nok')).toMatchObject({ body: 'ok', done: true });
    expect(one('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nhi\n0\nT: 1\n\n')).toMatchObject({ body: 'hi', done: true });
    expect(headers(one('HTTP/1.1 200 OK\nA: b\nContent-Length: 0\n\n'))).toEqual(['A', 'b', 'Content-Length', '0']);
  });

  it('ignores an empty line before the status line', () => {
    expect(one('\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ body: 'ok', done: true });
    expect(one('\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ body: 'ok', done: true });
  });

  // RFC 9112 §2.2: empty lines before the status line are ignored, however many (two of them
  // must not read as the blank line that ends an empty head)
  it('ignores several empty lines before the status line', () => {
    expect(one('\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ body: 'ok', done: true });
    expect(one('\n\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({ body: 'ok', done: true });
  });
});

describe('ResponseParser: what follows the end of a message', () => {
  it.each([
    ['Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 'HTTP/1.1 200 OK\r\n\r\n'],
    ['Content-Length: 0', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 'junk'],
    ['chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', '\r\n'],
  ])('returns fewer bytes than fed after a %s message', (_name, msg, extra) => {
    const o = one(msg + extra);
    expect(o).toMatchObject({ done: true, used: [msg.length] });
    expect(o.heads).toHaveLength(1);
  });

  it('takes nothing once done', () => {
    const p = new ResponseParser({ head: () => {}, body: () => {} });
    p.feed(bytes('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    expect(p.feed(bytes('HTTP/1.1 200 OK\r\n'))).toBe(0);
    expect(p.feed(Buffer.alloc(0))).toBe(0);
    expect(p.close()).toBe(true);
  });

  it('takes nothing from an empty feed', () => {
    const p = new ResponseParser({ head: () => {}, body: () => {} });
    expect(p.feed(Buffer.alloc(0))).toBe(0);
    expect(p.started).toBe(false);
  });
});

describe('ResponseParser: refused answers', () => {
  const cl0 = 'Content-Length: 0\r\n\r\n';

  it.each([
    ['HTTP/2 200', `HTTP/2 200\r\n${cl0}`],
    ['HTTP/2.0', `HTTP/2.0 200 OK\r\n${cl0}`],
    ['HTTP/1.2', `HTTP/1.2 200 OK\r\n${cl0}`],
    ['two-digit status', `HTTP/1.1 20\r\n${cl0}`],
    ['four-digit status', `HTTP/1.1 2000 OK\r\n${cl0}`],
    ['status below 100', `HTTP/1.1 099 Low\r\n${cl0}`],
    ['non-digit status', `HTTP/1.1 2x0 OK\r\n${cl0}`],
    ['no space before status', `HTTP/1.1200 OK\r\n${cl0}`],
    ['two spaces before status', `HTTP/1.1  200 OK\r\n${cl0}`],
    ['lower-case protocol', `http/1.1 200 OK\r\n${cl0}`],
    ['ICY', `ICY 200 OK\r\n${cl0}`],
    ['garbage', 'garbage\r\n\r\n'],
    ['binary', '\x00\x01\x02\xff\n\n'],
    ['header line without a colon', `HTTP/1.1 200 OK\r\nNoColonHere\r\n${cl0}`],
    ['header line starting with a colon', `HTTP/1.1 200 OK\r\n: value\r\n${cl0}`],
    ['obs-fold (space)', `HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\n${cl0}`],
    ['obs-fold (tab)', `HTTP/1.1 200 OK\r\nX-A: one\r\n\ttwo\r\n${cl0}`],
    ['space in a header name', `HTTP/1.1 200 OK\r\nBad Name: x\r\n${cl0}`],
    ['space before the colon', `HTTP/1.1 200 OK\r\nX-A : x\r\n${cl0}`],
    ['non-token byte in a header name', `HTTP/1.1 200 OK\r\nX(A): x\r\n${cl0}`],
    ['non-ASCII header name', `HTTP/1.1 200 OK\r\nX-\xe9: x\r\n${cl0}`],
    ['conflicting Content-Length headers', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
    ['conflicting Content-Length list', 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!'],
    ['non-digit Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 5a\r\n\r\nhello'],
    ['signed Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello'],
    ['negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    ['hex Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\nhello'],
    ['empty Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n'],
    ['Content-Length list with an empty member', 'HTTP/1.1 200 OK\r\nContent-Length: 5,\r\n\r\nhello'],
    ['16-digit Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n'],
  ])('refuses %s with INVALID_RESPONSE', (_name, msg) => {
    const o = one(msg);
    expect(o.error).toBe('INVALID_RESPONSE');
    expect(o.message).toMatch(/^invalid HTTP response: /);
    expect(o.heads).toHaveLength(0);
  });

  it('accepts a repeated identical Content-Length, as a list or as two headers', () => {
    expect(one('HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello')).toMatchObject({ body: 'hello', done: true, reusable: true });
    expect(one('HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\nhello')).toMatchObject({ body: 'hello', done: true });
    expect(one('HTTP/1.1 200 OK\r\nContent-Length: 005\r\n\r\nhello')).toMatchObject({ body: 'hello', done: true });
  });

  it('refuses a bad status line split over feeds the same way', () => {
    expect(errorOf(['HTT', 'P/2 200\r', '\n\r\n'])).toBe('INVALID_RESPONSE');
  });
});

describe('ResponseParser: size limits', () => {
  const filler = (n: number) => `X-Fill: ${'a'.repeat(n - 'X-Fill: \r\n'.length)}\r\n`;

  it(`accepts a head of exactly ${MAX_HEAD_BYTES} bytes`, () => {
    const start = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n';
    const msg = start + filler(MAX_HEAD_BYTES - start.length - 2) + '\r\n';
    expect(msg.length).toBe(MAX_HEAD_BYTES);
    expect(one(msg + 'ok')).toMatchObject({ body: 'ok', done: true });
  });

  it('refuses a head one byte larger, with or without its terminator, in one feed or many', () => {
    const start = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n';
    const msg = start + filler(MAX_HEAD_BYTES - start.length - 1) + '\r\n';
    expect(msg.length).toBe(MAX_HEAD_BYTES + 1);
    expect(errorOf(msg + 'ok')).toBe('RESPONSE_HEAD_TOO_LARGE');
    const pieces = (msg + 'ok').match(/[^]{1,1000}/g)!;
    expect(errorOf(pieces)).toBe('RESPONSE_HEAD_TOO_LARGE');
  });

  it('refuses an unterminated head as soon as it passes the limit', () => {
    const endless = 'HTTP/1.1 200 OK\r\nX-Big: ' + 'b'.repeat(MAX_HEAD_BYTES);
    expect(errorOf(endless)).toBe('RESPONSE_HEAD_TOO_LARGE');
    // fed in pieces: refused at the piece that crosses the limit
    const p = new ResponseParser({ head: () => {}, body: () => {} });
    const piece = bytes('y'.repeat(4096));
    expect(p.feed(bytes('HTTP/1.1 200 OK\r\nX-Big: '))).toBe(24);
    for (let i = 0; i < 3; i++) expect(p.feed(piece)).toBe(4096);
    expect(() => p.feed(piece)).toThrow(expect.objectContaining({ code: 'RESPONSE_HEAD_TOO_LARGE' }));
  });

  it('counts each interim head on its own', () => {
    const interim = `HTTP/1.1 103 Early Hints\r\n${filler(10_000)}\r\n`;
    expect(one(interim + interim + 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')).toMatchObject({ done: true });
  });

  it('refuses trailers larger than the head limit', () => {
    const trailers = filler(9000) + filler(9000);
    const o = one(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${trailers}\r\n`);
    expect(o.error).toBe('RESPONSE_HEAD_TOO_LARGE');
  });
});

describe('ResponseParser: refused chunk framing', () => {
  const te = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';

  it.each([
    ['a non-hex size', 'g\r\nx\r\n0\r\n\r\n'],
    ['a size with a 0x prefix', '0x5\r\nhello\r\n0\r\n\r\n'],
    ['a negative size', '-1\r\n\r\n'],
    ['an empty size line', '\r\nhello\r\n0\r\n\r\n'],
    ['a blank before the size', ' 5\r\nhello\r\n0\r\n\r\n'],
    ['14 hex digits', '10000000000000\r\nx\r\n'],
    ['14 digits even with leading zeros', '00000000000005\r\nhello\r\n0\r\n\r\n'],
    ['a size line over 1 KiB', `5;${'e'.repeat(1100)}\r\nhello\r\n0\r\n\r\n`],
    ['a size line over 1 KiB without its end', `5;${'e'.repeat(1100)}`],
    ['chunk data longer than declared', '3\r\nhello\r\n0\r\n\r\n'],
    ['chunk data with no line end after it', '2\r\nhiX\r\n0\r\n\r\n'],
  ])('refuses %s with INVALID_RESPONSE', (_name, body) => {
    expect(errorOf(te + body)).toBe('INVALID_RESPONSE');
  });

  it('accepts 13 hex digits (the largest safe size) and waits for the data', () => {
    const o = one(`${te}FFFFFFFFFFFFF\r\nabc`);
    expect(o.error).toBeUndefined();
    expect(o).toMatchObject({ body: 'abc', done: false });
  });

  it('refuses an over-long size line split across feeds', () => {
    expect(errorOf([te, '5;', 'e'.repeat(600), 'e'.repeat(600), '\r\nhello\r\n'])).toBe('INVALID_RESPONSE');
  });

  it('allows blanks after the size', () => {
    expect(one(`${te}2 \t;x=y\r\nhi\r\n0\r\n\r\n`)).toMatchObject({ body: 'hi', done: true });
  });
});

// ---------------------------------------------------------------------------------------------
// Split invariance: the same result however the bytes are cut into feeds.

interface Summary {
  heads: ResponseHead[];
  body: string;
  /** bytes taken in all */
  used: number;
  done: boolean;
  reusable: boolean;
  closed?: boolean;
  error?: string;
}

function summarize(o: Outcome): Summary {
  // bytes taken by the feeds before the one that threw depend on the split: not compared
  const s: Summary = { heads: o.heads, body: o.body, used: o.error ? -1 : o.used.reduce((a, b) => a + b, 0), done: o.done, reusable: o.reusable };
  if (o.closed !== undefined) s.closed = o.closed;
  if (o.error !== undefined) s.error = o.error;
  return s;
}

const SAMPLES: { name: string; msg: string; close?: boolean }[] = [
  { name: 'Content-Length with headers', msg: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Reply:  yes \r\nContent-Length: 11\r\n\r\nhello world' },
  {
    name: 'chunked with extensions, trailers and bytes after',
    msg: 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\nA\r\n0123456789\r\nf\r\nfifteen bytes!!\r\n0\r\nX-T: 1\r\n\r\nEXTRA',
  },
  { name: 'bare LF everywhere', msg: 'HTTP/1.1 200 OK\nServer: lf\nContent-Length: 3\n\nabc' },
  {
    name: '100 and 103 before the answer, bytes after',
    msg: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokXX',
  },
  { name: 'HTTP/1.0 until close', msg: 'HTTP/1.0 200 OK\r\nServer: x\r\n\r\nuntil the close', close: true },
  { name: '204 with a Content-Length and bytes after', msg: 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello' },
  { name: 'leading CRLF, Keep-Alive timeout', msg: '\r\nHTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=10\r\nContent-Length: 0\r\n\r\n' },
  {
    name: 'chunked mixing LF and CRLF, upper and lower hex, Connection: close',
    msg: `HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\n\nb\nhello world\n1A\r\n${'z'.repeat(26)}\r\n1a\n${'q'.repeat(26)}\n0\n\n`,
  },
  { name: 'a refused answer', msg: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBad Header\r\n\r\nok' },
  { name: 'chunk data overrun', msg: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhiX\r\n0\r\n\r\n' },
];

describe('ResponseParser: every split point', () => {
  it.each(SAMPLES)('$name: two feeds at every position, and byte by byte, match one feed', ({ msg, close }) => {
    const whole = summarize(one(msg, { close }));
    if (!whole.error) expect(whole.done).toBe(true);
    for (let i = 0; i <= msg.length; i++) {
      expect(summarize(parse([msg.slice(0, i), msg.slice(i)], { close })), `split at ${i}`).toEqual(whole);
    }
    expect(summarize(parse([...msg], { close })), 'byte by byte').toEqual(whole);
    // three pieces at every pair of positions, on the shorter samples
    if (msg.length <= 120) {
      for (let i = 0; i <= msg.length; i++) {
        for (let j = i; j <= msg.length; j++) {
          expect(summarize(parse([msg.slice(0, i), msg.slice(i, j), msg.slice(j)], { close })), `split at ${i}, ${j}`).toEqual(whole);
        }
      }
    }
  });

  it('the valid samples are what they say', () => {
    const ok = SAMPLES.filter((s) => !summarize(one(s.msg, { close: s.close })).error);
    expect(ok).toHaveLength(8);
    expect(one(SAMPLES[1].msg).body).toBe('hello0123456789fifteen bytes!!');
    expect(one(SAMPLES[1].msg).used).toEqual([SAMPLES[1].msg.length - 5]);
    expect(one(SAMPLES[3].msg).used).toEqual([SAMPLES[3].msg.length - 2]);
    expect(one(SAMPLES[6].msg).heads[0].keepAliveMs).toBe(5000);
    expect(one(SAMPLES[7].msg)).toMatchObject({ body: `hello world${'z'.repeat(26)}${'q'.repeat(26)}`, reusable: false });
  });
});

// ---------------------------------------------------------------------------------------------
// Randomized: mutations of valid answers and random bytes. Seeded, so a failure is reproducible.

const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, xs.length)];

const TOKENS = [
  '\r',
  '\n',
  '\r\n',
  '\r\n\r\n',
  '\n\n',
  ':',
  ' ',
  '\t',
  ';',
  ',',
  '0',
  '1',
  '9',
  'a',
  'F',
  'ffffffff',
  '\x00',
  '\xff',
  'HTTP/1.1 ',
  'HTTP/1.0 ',
  '100 Continue\r\n\r\n',
  '101',
  '204',
  '304',
  'Content-Length: ',
  'Transfer-Encoding: chunked',
  'Transfer-Encoding: gzip',
  'Connection: close',
  'Connection: keep-alive',
  'Keep-Alive: timeout=',
  '0\r\n\r\n',
];

function mutate(rng: Rng, input: string): string {
  let s = input;
  const ops = 1 + int(rng, 4);
  for (let k = 0; k < ops; k++) {
    const at = int(rng, s.length + 1);
    switch (int(rng, 7)) {
      case 0: // replace a byte
        s = s.slice(0, at) + String.fromCharCode(int(rng, 256)) + s.slice(at + 1);
        break;
      case 1: // delete a range
        s = s.slice(0, at) + s.slice(at + 1 + int(rng, 8));
        break;
      case 2: // insert a token
        s = s.slice(0, at) + pick(rng, TOKENS) + s.slice(at);
        break;
      case 3: {
        // duplicate a range
        const len = int(rng, 40);
        s = s.slice(0, at) + s.slice(at, at + len) + s.slice(at);
        break;
      }
      case 4: // truncate
        s = s.slice(0, at);
        break;
      case 5: // a long run, sometimes past the limits
        s = s.slice(0, at) + pick(rng, ['a', '0', ' ', 'F']).repeat(pick(rng, [100, 1023, 1100, 9000, MAX_HEAD_BYTES + 10])) + s.slice(at);
        break;
      default: // swap CRLF and LF
        s = rng() < 0.5 ? s.replaceAll('\r\n', '\n') : s.replaceAll(/(?<!\r)\n/g, '\r\n');
    }
  }
  return s;
}

function randomBytes(rng: Rng): string {
  let s = '';
  const n = int(rng, 300);
  for (let i = 0; i < n; i++) s += rng() < 0.5 ? String.fromCharCode(int(rng, 256)) : pick(rng, TOKENS);
  return s;
}

/** cuts s into 1..6 pieces at random places */
function randomSplit(rng: Rng, s: string): string[] {
  const cuts = Array.from({ length: int(rng, 6) }, () => int(rng, s.length + 1)).sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const c of cuts) {
    parts.push(s.slice(from, c));
    from = c;
  }
  parts.push(s.slice(from));
  return parts;
}

/** feeds the parts, checking each feed's contract; rethrows anything but a ResponseError */
function checkedRun(parts: string[]): Summary {
  const heads: ResponseHead[] = [];
  let bodyBytes = 0;
  const body: Buffer[] = [];
  const p = new ResponseParser({
    head: (h) => heads.push(h),
    body: (b) => {
      bodyBytes += b.length;
      body.push(Buffer.from(b));
    },
  });
  let used = 0;
  let error: string | undefined;
  try {
    for (const part of parts) {
      const data = bytes(part);
      const n = p.feed(data);
      if (!Number.isInteger(n) || n < 0 || n > data.length) throw new Error(`feed returned ${n} of ${data.length}`);
      if (!p.done && n !== data.length) throw new Error(`not done, yet took ${n} of ${data.length}`);
      used += n;
    }
  } catch (err) {
    if (!(err instanceof ResponseError)) throw err;
    expect(['INVALID_RESPONSE', 'RESPONSE_HEAD_TOO_LARGE']).toContain(err.code);
    error = err.code;
  }
  if (heads.length > 1) throw new Error('two heads for one message');
  if (!error && bodyBytes > used) throw new Error('more body than bytes taken');
  const s: Summary = { heads, body: Buffer.concat(body).toString('latin1'), used, done: p.done, reusable: p.reusable };
  if (error) {
    s.error = error;
    s.used = -1; // the feeds before the one that threw took their bytes: depends on the split
  } else {
    const wasDone = p.done;
    s.closed = p.close(); // never throws
    if (wasDone && !s.closed) throw new Error('close() after done said cut short');
    s.done = p.done;
  }
  return s;
}

describe('ResponseParser: randomized inputs', () => {
  const VALID = SAMPLES.map((s) => s.msg).slice(0, 8);

  it('throws only ResponseError, always ends, and splits never change the result', () => {
    const rng = mulberry32(0x5eed1);
    const counts = { error: 0, done: 0, pending: 0 };
    for (let i = 0; i < 4000; i++) {
      const input = i % 4 === 3 ? randomBytes(rng) : mutate(rng, pick(rng, VALID));
      const whole = checkedRun([input]);
      const split = checkedRun(randomSplit(rng, input));
      expect(split, `input #${i}: ${JSON.stringify(input.slice(0, 300))}`).toEqual(whole);
      counts[whole.error ? 'error' : whole.done ? 'done' : 'pending']++;
    }
    // the mutations reach both sides
    expect(counts.error).toBeGreaterThan(400);
    expect(counts.done).toBeGreaterThan(400);
  });

  it('random bytes after a valid head never throw anything else, whatever the framing', () => {
    const rng = mulberry32(42);
    const heads = [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n',
      'HTTP/1.1 200 OK\r\n\r\n',
      'HTTP/1.1 100 Continue\r\n\r\n',
    ];
    for (let i = 0; i < 2000; i++) {
      const input = pick(rng, heads) + randomBytes(rng);
      expect(checkedRun(randomSplit(rng, input))).toEqual(checkedRun([input]));
    }
  });
});
