// The webhook client against raw TCP and TLS servers that read requests and write hand-crafted
// answers: what goes on the wire, how answers are framed, and when a socket is kept or dropped.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createWebhookClient, type WebhookClient, type WebhookClientOptions } from '../../../src/worker/webhook/client/http-client.js';
import { answer, sleep, startRawServer, writeSlowly, type RawServer } from './raw-servers.js';

// An exchange's timeout only bounds a hang here: a loaded machine can stall this process for
// seconds, and when it runs again the expired timer goes before the answer waiting in the socket
// (2 s, with answers written a few bytes every 2 ms, could end an exchange that was fine).
function client(opts: Partial<WebhookClientOptions> = {}): WebhookClient {
  const c = createWebhookClient({ allowPrivateTargets: true, timeoutMs: 15_000, ...opts });
  onTestFinished(() => c.close());
  return c;
}

const post = (c: WebhookClient, url: string, body = '') => c.send({ url, headers: {}, body });

/** Polls until cond() holds (at most 15 s: 200 polls of 5 ms were not a second on a loaded machine). */
async function until(cond: () => boolean): Promise<void> {
  const end = Date.now() + 15_000;
  while (!cond() && Date.now() < end) await sleep(5);
  expect(cond()).toBe(true);
}

const bodies = (server: RawServer) => server.requests.map((r) => r.body.toString('utf8'));

describe('webhook client on the wire: answers and their framing', () => {
  it('decodes a chunked answer into responseBody, and keeps the socket', async () => {
    const server = await startRawServer((_req, conn) => {
      conn.socket.write(
        'HTTP/1.1 200 OK\r\nX-Reply: yes\r\nTransfer-Encoding: chunked\r\n\r\n' +
          '5\r\nhello\r\n7;ext=1\r\n, world\r\nA\r\n and more.\r\n0\r\nX-Trailer: t\r\n\r\n',
      );
    });
    const c = client();
    const result = await post(c, server.url);
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: 'hello, world and more.' });
    expect(result.headers).toMatchObject({ 'x-reply': 'yes', 'transfer-encoding': 'chunked' });
    expect(result.headers?.['x-trailer']).toBeUndefined();
    expect((await post(c, server.url)).ok).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('joins a UTF-8 character split across chunks', async () => {
    const server = await startRawServer((_req, conn) => {
      conn.socket.write(
        Buffer.concat([
          Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ncaf\xc3\r\n', 'latin1'),
          Buffer.from('1\r\n\xa9\r\n0\r\n\r\n', 'latin1'),
        ]),
      );
    });
    expect(await post(client(), server.url)).toMatchObject({ ok: true, responseBody: 'café' });
  });

  it('reads a close-delimited answer to the close, and opens a new socket next time', async () => {
    const server = await startRawServer((req, conn) => {
      conn.socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the close: ${req.body}`);
    });
    const c = client();
    expect(await post(c, server.url, 'one')).toMatchObject({ ok: true, status: 200, responseBody: 'until the close: one' });
    expect(await post(c, server.url, 'two')).toMatchObject({ ok: true, responseBody: 'until the close: two' });
    expect(server.connections()).toBe(2);
  });

  it('reads an answer cut into many TCP writes, some inside CR LF, with delays between them', async () => {
    const msg = 'HTTP/1.1 201 Created\r\nX-A: 1\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n';
    const pieces = msg.match(/[^]{1,3}/g)!; // every third byte a new segment
    const server = await startRawServer((_req, conn) => void writeSlowly(conn.socket, pieces, 2));
    const c = client();
    expect(await post(c, server.url)).toMatchObject({ ok: true, status: 201, responseBody: 'abcdefg', headers: { 'x-a': '1' } });
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'abcdefg' });
    expect(server.connections()).toBe(1);
  });

  it('answers after an interim 100 Continue (and 103) in separate writes, and keeps the socket', async () => {
    const server = await startRawServer((_req, conn) => {
      void writeSlowly(
        conn.socket,
        ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', answer('final', '200 OK', ['X-Final: 1'])],
        10,
      );
    });
    const c = client();
    const result = await post(c, server.url);
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: 'final' });
    expect(result.headers).toEqual({ 'x-final': '1', 'content-length': '5' });
    expect((await post(c, server.url)).ok).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('reports RESPONSE_HEAD_TOO_LARGE for a head over 16 KiB', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer('ok', '200 OK', [`X-Big: ${'b'.repeat(17 * 1024)}`])));
    const result = await post(client(), server.url);
    expect(result).toMatchObject({ ok: false, error: 'RESPONSE_HEAD_TOO_LARGE', responseBody: '' });
    expect(result.status).toBeUndefined();
  });

  it('reports RESPONSE_ABORTED when the server closes mid-body', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'));
    const result = await post(client(), server.url);
    expect(result).toMatchObject({ ok: false, status: 200, error: 'RESPONSE_ABORTED', responseBody: 'partial' });
  });

  it('reports RESPONSE_ABORTED when the server closes inside a chunked body', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'));
    expect(await post(client(), server.url)).toMatchObject({ ok: false, status: 200, error: 'RESPONSE_ABORTED', responseBody: 'hello' });
  });

  it('reports ECONNRESET when a fresh socket closes before any byte of an answer, and does not retry', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.destroy());
    const result = await post(client(), server.url, 'once');
    expect(result).toMatchObject({ ok: false, error: 'ECONNRESET', responseBody: '' });
    expect(result.status).toBeUndefined();
    expect(bodies(server)).toEqual(['once']);
  });
});

describe('webhook client on the wire: which sockets are reused', () => {
  it('opens a new connection after an answer with Connection: close', async () => {
    // the server leaves the socket open: dropping it is the client's doing
    const server = await startRawServer((_req, conn) => conn.socket.write(answer('bye', '200 OK', ['Connection: close'])));
    const c = client();
    for (let i = 0; i < 3; i++) expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'bye' });
    expect(server.connections()).toBe(3);
    await Promise.all(server.conns.slice(0, 2).map((conn) => conn.closed)); // the client closed them
  });

  it('sends on a new socket after the server closed an idle keep-alive one', async () => {
    const server = await startRawServer((_req, conn) => {
      conn.socket.write(answer());
      if (conn.id === 1) setTimeout(() => conn.socket.end(), 10);
    });
    const c = client();
    expect((await post(c, server.url)).ok).toBe(true);
    await server.conns[0].closed;
    await sleep(20);
    expect(await post(c, server.url, 'after')).toMatchObject({ ok: true, responseBody: 'ok' });
    expect(server.connections()).toBe(2);
    expect(bodies(server)).toEqual(['', 'after']);
  });

  it('retries once on a new socket when a reused one closes after reading the request, without answering', async () => {
    const server = await startRawServer((_req, conn) => {
      if (conn.requests === 1) conn.socket.write(answer('answered'));
      else conn.socket.destroy(); // the second request on any socket
    });
    const c = client();
    expect((await post(c, server.url, 'first')).ok).toBe(true);
    const result = await post(c, server.url, 'second');
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: 'answered' });
    expect(bodies(server)).toEqual(['first', 'second', 'second']);
    expect(server.connections()).toBe(2);
  });

  it('gives up after one retry when the server keeps closing without answering', async () => {
    let answered = 0;
    const server = await startRawServer((_req, conn) => {
      if (answered++ === 0) conn.socket.write(answer());
      else conn.socket.destroy();
    });
    const c = client();
    expect((await post(c, server.url, 'first')).ok).toBe(true);
    const result = await post(c, server.url, 'second');
    expect(result).toMatchObject({ ok: false, error: 'ECONNRESET' }); // not TIMEOUT
    expect(bodies(server)).toEqual(['first', 'second', 'second']);
    expect(server.connections()).toBe(2);
    // and the client still works
    expect((await post(c, server.url, 'third')).error).toBe('ECONNRESET');
  });

  it('does not retry a reused socket that closed after the head of an answer', async () => {
    const server = await startRawServer((_req, conn) => {
      if (conn.requests === 1) conn.socket.write(answer());
      else conn.socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\npart');
    });
    const c = client();
    expect((await post(c, server.url, 'first')).ok).toBe(true);
    expect(await post(c, server.url, 'second')).toMatchObject({ ok: false, status: 200, error: 'RESPONSE_ABORTED', responseBody: 'part' });
    expect(bodies(server)).toEqual(['first', 'second']);
  });

  // the one retry is for a reused socket the server had closed as we wrote: a server that read the
  // request and began answering (half a status line, or a whole `100 Continue`) has it already
  it('does not resend a request whose answer had begun (half a head) on a reused socket', async () => {
    const server = await startRawServer((_req, conn) => {
      if (conn.requests === 1) conn.socket.write(answer());
      else conn.socket.end('HTTP/1.1 20');
    });
    const c = client();
    expect((await post(c, server.url, 'first')).ok).toBe(true);
    const result = await post(c, server.url, 'second');
    expect(bodies(server)).toEqual(['first', 'second']);
    expect(result.ok).toBe(false);
  });

  it('reports INVALID_RESPONSE for garbage, and drops that socket', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(conn.id === 1 ? 'SSH-2.0-OpenSSH_9.2\r\n\r\n' : answer('fine')));
    const c = client();
    const result = await post(c, server.url);
    expect(result).toMatchObject({ ok: false, error: 'INVALID_RESPONSE', responseBody: '' });
    expect(result.status).toBeUndefined();
    await server.conns[0].closed;
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'fine' });
    expect(server.connections()).toBe(2);
  });

  it('reports INVALID_RESPONSE for a bad header name in the answer', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write('HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 0\r\n\r\n'));
    expect(await post(client(), server.url)).toMatchObject({ ok: false, error: 'INVALID_RESPONSE' });
  });

  it('drops a socket whose answer was followed by extra bytes', async () => {
    const server = await startRawServer((_req, conn) =>
      conn.socket.write(conn.id === 1 ? `${answer('one')}HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nextra` : answer('two')),
    );
    const c = client();
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'one' });
    await server.conns[0].closed;
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'two' });
    expect(server.connections()).toBe(2);
  });

  it('drops an idle socket that receives bytes nobody asked for, and sends on a new one', async () => {
    const server = await startRawServer((_req, conn) => {
      conn.socket.write(answer(`answer ${conn.id}`));
      if (conn.id === 1) setTimeout(() => conn.socket.write(answer('unsolicited')), 20);
    });
    const c = client();
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'answer 1' });
    await server.conns[0].closed; // the client closed it on the unsolicited bytes
    expect(await post(c, server.url)).toMatchObject({ ok: true, responseBody: 'answer 2' });
    expect(server.connections()).toBe(2);
  });

  it("does not reuse a socket past the server's Keep-Alive timeout less 1 s of slack (timeout=1: at once)", async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer('ok', '200 OK', ['Keep-Alive: timeout=1'])));
    const c = client();
    expect((await post(c, server.url)).ok).toBe(true);
    await sleep(100);
    expect((await post(c, server.url)).ok).toBe(true);
    expect(server.connections()).toBe(2);
    await server.conns[0].closed;
  });

  it('reuses a socket within a longer Keep-Alive timeout', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer('ok', '200 OK', ['Keep-Alive: timeout=5, max=100'])));
    const c = client();
    expect((await post(c, server.url)).ok).toBe(true);
    await sleep(100);
    expect((await post(c, server.url)).ok).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('does not reuse a socket after an HTTP/1.0 answer without keep-alive', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const c = client();
    expect((await post(c, server.url)).ok).toBe(true);
    expect((await post(c, server.url)).ok).toBe(true);
    expect(server.connections()).toBe(2);
  });

  it('answers 50 concurrent sends to one origin (no maxSockets), each with its own answer', async () => {
    const server = await startRawServer((req, conn) => {
      setTimeout(() => conn.socket.write(answer(`echo ${req.body.toString()}`)), 20);
    });
    const c = client();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post(c, `${server.url}/n`, String(i))));
    expect(results.map((r) => r.responseBody)).toEqual(Array.from({ length: 50 }, (_, i) => `echo ${i}`));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(server.requests).toHaveLength(50);
    expect(server.connections()).toBe(50);
    // all 50 are pooled: another round opens nothing
    await Promise.all(Array.from({ length: 50 }, (_, i) => post(c, `${server.url}/n`, String(i))));
    expect(server.connections()).toBe(50);
  });
});

describe('webhook client on the wire: close()', () => {
  it('ends an exchange under way and a queued one with CLIENT_CLOSED (maxSockets 1), without hanging', async () => {
    const server = await startRawServer(() => {}); // never answers
    const c = createWebhookClient({ allowPrivateTargets: true, timeoutMs: 20_000, maxSockets: 1 });
    onTestFinished(() => c.close());
    const first = post(c, server.url, 'under way');
    const second = post(c, server.url, 'queued');
    await until(() => server.requests.length === 1);
    c.close();
    // both end at close (CLIENT_CLOSED), not at their timeout (TIMEOUT)
    const results = await Promise.all([first, second]);
    expect(results.map((r) => [r.ok, r.error])).toEqual([
      [false, 'CLIENT_CLOSED'],
      [false, 'CLIENT_CLOSED'],
    ]);
    await server.conns[0].closed;
    expect(bodies(server)).toEqual(['under way']);
    expect(await post(c, server.url)).toMatchObject({ ok: false, error: 'CLIENT_CLOSED' });
    expect(server.connections()).toBe(1);
  });
});

describe('webhook client on the wire: what is sent', () => {
  it('writes the exact request bytes: request line, headers in order, Host, byte Content-Length, keep-alive, body', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const body = '{"where":"salle à manger","emoji":"😀"}';
    const result = await client().send({
      url: `${server.url}/hooks/é?x=1&y=ü#fragment`,
      method: 'PUT',
      headers: {
        'Content-Type': 'application/json',
        'X-Service-Signature': 'sha256=abc',
        'content-length': '1', // framing headers are ours: dropped
        'Transfer-Encoding': 'chunked',
        Connection: 'close',
        'Keep-Alive': 'timeout=99',
        Upgrade: 'websocket',
        TE: 'trailers',
        Trailer: 'X',
        'X-Latin1': 'café', // a byte of 0x80-0xff is allowed, sent as one byte
        'X-Empty': '',
      },
      body,
    });
    expect(result.ok).toBe(true);
    const expected = Buffer.concat([
      Buffer.from(
        'PUT /hooks/%C3%A9?x=1&y=%C3%BC HTTP/1.1\r\n' +
          'Content-Type: application/json\r\n' +
          'X-Service-Signature: sha256=abc\r\n' +
          'X-Latin1: caf\xe9\r\n' +
          'X-Empty: \r\n' +
          `Host: 127.0.0.1:${server.port}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: keep-alive\r\n\r\n',
        'latin1',
      ),
      Buffer.from(body, 'utf8'),
    ]);
    expect(Buffer.byteLength(body)).toBe(body.length + 3); // à is 2 bytes, 😀 is 4 (2 UTF-16 units)
    expect(server.requests[0].raw.toString('latin1')).toBe(expected.toString('latin1'));
    expect(server.requests[0].raw.equals(expected)).toBe(true);
  });

  it('POSTs to / by default, and keeps a caller-given Host in its place', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const c = client();
    await c.send({ url: server.url, headers: {}, body: '' });
    await c.send({ url: `${server.url}?q`, headers: { 'X-A': '1', host: 'example.test', 'X-B': '2' }, body: 'x' });
    expect(server.requests[0].raw.toString('latin1')).toBe(
      `POST / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n`,
    );
    expect(server.requests[1].raw.toString('latin1')).toBe(
      'POST /?q HTTP/1.1\r\nX-A: 1\r\nhost: example.test\r\nX-B: 2\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\nx',
    );
  });

  it('sends Basic auth from the URL userinfo (decoded), after Host; a caller Authorization wins', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const c = client();
    const url = `http://us%20er:p%40ss:w%C3%A9@127.0.0.1:${server.port}/auth`;
    expect((await c.send({ url, headers: { 'X-A': '1' }, body: '' })).ok).toBe(true);
    const token = Buffer.from('us er:p@ss:wé', 'utf8').toString('base64');
    expect(server.requests[0].raw.toString('latin1')).toBe(
      `POST /auth HTTP/1.1\r\nX-A: 1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Basic ${token}\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n`,
    );
    await c.send({ url, headers: { authorization: 'Bearer mine' }, body: '' });
    const auth = server.requests[1].headers.filter(([n]) => n.toLowerCase() === 'authorization');
    expect(auth).toEqual([['authorization', 'Bearer mine']]);
    // a user without a password
    await c.send({ url: `http://only@127.0.0.1:${server.port}/`, headers: {}, body: '' });
    expect(server.requests[2].headers).toContainEqual(['Authorization', `Basic ${Buffer.from('only:').toString('base64')}`]);
  });

  it.each([['Bad Name'], ['X-A\r\nX-Injected'], ['X:Y'], [''], ['X-é']])(
    'refuses the header name %j with ERR_INVALID_HTTP_TOKEN, sending nothing',
    async (name) => {
      const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
      const c = client();
      expect(await c.send({ url: server.url, headers: { 'X-Fine': '1', [name]: 'v' }, body: '' })).toMatchObject({
        ok: false,
        error: 'ERR_INVALID_HTTP_TOKEN',
        responseBody: '',
      });
      // positive control: a valid send after it arrives, and it is the only request the server saw
      expect((await c.send({ url: server.url, headers: { 'X-Fine': '1' }, body: '' })).ok).toBe(true);
      expect(server.connections()).toBe(1);
      expect(server.requests.map((r) => r.requestLine)).toEqual(['POST / HTTP/1.1']);
    },
  );

  it('judges a header name the same on every request, and in every client (names are judged once and remembered)', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const headers = { 'X-Fine': '1', HOST: 'example.test', 'content-LENGTH': '999', 'Bad Name!': 'v' };
    for (const c of [client(), client(), client()]) {
      // twice in each client: the first judgement of a name and the remembered one agree
      for (let i = 0; i < 2; i++) {
        expect(await c.send({ url: server.url, headers, body: 'ab' })).toMatchObject({ ok: false, error: 'ERR_INVALID_HTTP_TOKEN' });
        const { 'Bad Name!': _refused, ...fine } = headers;
        expect((await c.send({ url: server.url, headers: fine, body: 'ab' })).ok).toBe(true);
      }
    }
    // only the valid sends arrived, each with the caller's Host, its own framing and no other
    expect(server.requests).toHaveLength(6);
    for (const req of server.requests) {
      expect(req.headers).toEqual([
        ['X-Fine', '1'],
        ['HOST', 'example.test'],
        ['Content-Length', '2'],
        ['Connection', 'keep-alive'],
      ]);
      expect(req.body.toString()).toBe('ab');
    }
  });

  it.each([
    ['CR LF (header injection)', 'v\r\nX-Injected: 1'],
    ['a bare LF', 'a\nb'],
    ['a bare CR', 'a\rb'],
    ['NUL', 'a\0b'],
    ['DEL', 'a\x7fb'],
    ['a character past latin1', '€'],
    ['a request smuggled after the head', 'v\r\n\r\nPOST /evil HTTP/1.1\r\nContent-Length: 0\r\n\r\n'],
  ])('refuses a header value with %s (ERR_INVALID_CHAR), and nothing reaches the server', async (_what, value) => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const c = client();
    expect(await c.send({ url: server.url, headers: { 'X-A': value }, body: '' })).toMatchObject({ ok: false, error: 'ERR_INVALID_CHAR' });
    // the client is unharmed, and the valid send (the positive control) is all the server saw
    expect((await c.send({ url: server.url, headers: { 'X-A': 'fine' }, body: '' })).ok).toBe(true);
    expect(server.connections()).toBe(1);
    expect(server.requests.map((r) => r.requestLine)).toEqual(['POST / HTTP/1.1']);
  });

  it('puts no CR LF of a URL on the wire', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()));
    const result = await client().send({ url: `${server.url}/a\r\nX-Injected: 1\r\n?b= c`, headers: {}, body: '' });
    expect(result.ok).toBe(true);
    const [req] = server.requests;
    expect(req.requestLine).toBe('POST /aX-Injected:%201?b=%20c HTTP/1.1');
    expect(req.headers.map(([n]) => n)).toEqual(['Host', 'Content-Length', 'Connection']);
  });
});

describe('webhook client on the wire: HTTPS', () => {
  let dir: string;
  let key: string;
  let cert: string;
  let otherKey: string;
  let otherCert: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-wire-tls-'));
    const make = (name: string, subject: string, san: string) => {
      execFileSync(
        '/usr/bin/openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          subject,
          '-addext',
          `subjectAltName=${san}`,
          '-keyout',
          join(dir, `${name}.key`),
          '-out',
          join(dir, `${name}.crt`),
        ],
        { stdio: 'pipe' },
      );
      return [readFileSync(join(dir, `${name}.key`), 'utf8'), readFileSync(join(dir, `${name}.crt`), 'utf8')];
    };
    [key, cert] = make('local', '/CN=localhost', 'DNS:localhost,IP:127.0.0.1');
    [otherKey, otherCert] = make('other', '/CN=other.test', 'DNS:other.test');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends over TLS to a server whose certificate is trusted through ca, reusing one connection', async () => {
    const server = await startRawServer((req, conn) => conn.socket.write(answer(`tls ${req.body.toString()}`)), { tls: { key, cert } });
    const c = client({ ca: [cert] });
    for (let i = 0; i < 3; i++) expect(await post(c, `${server.url}/hook`, String(i))).toMatchObject({ ok: true, status: 200, responseBody: `tls ${i}` });
    expect(server.connections()).toBe(1);
    expect(server.requests[0].requestLine).toBe('POST /hook HTTP/1.1');
    expect(server.requests[0].headers).toContainEqual(['Host', `127.0.0.1:${server.port}`]);
  });

  it('resumes the TLS session of the origin on a new connection', async () => {
    const reused: boolean[] = [];
    const server = await startRawServer(
      (_req, conn) => {
        reused.push((conn.socket as TLSSocket).isSessionReused());
        conn.socket.end(answer('once', '200 OK', ['Connection: close']));
      },
      { tls: { key, cert } },
    );
    const c = client({ ca: [cert] });
    for (let i = 0; i < 3; i++) expect(await post(c, server.url, String(i))).toMatchObject({ ok: true, responseBody: 'once' });
    expect(server.connections()).toBe(3);
    expect(reused).toEqual([false, true, true]);
  });

  it('checks the name of the host against the certificate (localhost)', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer('named')), { tls: { key, cert } });
    expect(await post(client({ ca: cert }), `https://localhost:${server.port}/`)).toMatchObject({ ok: true, responseBody: 'named' });
  });

  it('refuses a self-signed certificate without ca, sending nothing', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()), { tls: { key, cert } });
    const result = await post(client(), server.url, 'secret');
    expect(result).toMatchObject({ ok: false, responseBody: '' });
    expect(result.error).toMatch(/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a trusted certificate for another name', async () => {
    const server = await startRawServer((_req, conn) => conn.socket.write(answer()), { tls: { key: otherKey, cert: otherCert } });
    const result = await post(client({ ca: [otherCert] }), server.url, 'secret');
    expect(result).toMatchObject({ ok: false, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(server.requests).toHaveLength(0);
  });
});
