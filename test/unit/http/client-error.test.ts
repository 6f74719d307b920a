// Requests Node's HTTP parser refuses before any route (the server's 'clientError') answer the
// API's error body {reason, data} (API.md §0) instead of Node's empty one, on raw sockets: 431
// for a 20 KB header, 400 for a broken request line or a bad header, 408 for a head that does not
// arrive within the connect timeout; the server stays up.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({ limits: { connectTimeoutMs: 1000 } });
});
afterAll(() => t?.close());

/** sends `text` on a new connection and resolves with all the server wrote until it closed */
function exchange(text: string, opts: { end?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s: Socket = connect(t.httpPort, '127.0.0.1', () => (opts.end ? s.end(text) : s.write(text)));
    onTestFinished(() => void s.destroy());
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

function parse(raw: string): { status: number; headers: string; body: any } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), headers: head.toLowerCase(), body: JSON.parse(raw.slice(split + 4)) };
}

describe("Node's parser errors", () => {
  it('a 20 KB header: 431 HEADERS_TOO_LARGE with a JSON body', async () => {
    const r = parse(await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expect(r.headers).toContain('content-type: application/json');
    expect(r.headers).toContain('connection: close');
    expect(r.body).toEqual({ reason: 'HEADERS_TOO_LARGE', data: { error: expect.any(String), code: 'HPE_HEADER_OVERFLOW' } });
  });

  it('a broken request line, and a header without a colon: 400 BAD_REQUEST with a JSON body', async () => {
    const line = parse(await exchange('THIS IS NOT HTTP\r\n\r\n'));
    expect(line.status).toBe(400);
    expect(line.body).toMatchObject({ reason: 'BAD_REQUEST', data: { code: expect.stringMatching(/^HPE_/) } });
    const header = parse(await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
    expect(header.status).toBe(400);
    expect(header.body.reason).toBe('BAD_REQUEST');
  });

  it('a head that never completes: 408 REQUEST_TIMEOUT once the connect timeout passes', async () => {
    const r = parse(await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
    expect(r.status).toBe(408);
    expect(r.body).toMatchObject({ reason: 'REQUEST_TIMEOUT' });
  });

  it('a bad request after a good one on a kept-alive connection gets its own answer after the first', async () => {
    const raw = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n');
    const [first, second] = raw.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(parse(second).body.reason).toBe('BAD_REQUEST');
  });

  it('the server keeps answering afterwards', async () => {
    expect((await t.http('GET', '/healthz')).status).toBe(200);
  });
});
