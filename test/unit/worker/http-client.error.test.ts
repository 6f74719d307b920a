import { describe, expect, it, onTestFinished } from 'vitest';
import { createWebhookClient, parseRetryAfter, type WebhookClientOptions } from '../../../src/worker/webhook/client/http-client.js';
import { closedPort, endlessBody, startServer } from './servers.js';

function client(opts: Partial<WebhookClientOptions> = {}) {
  // a timeout no exchange meets on a loaded machine, unless the test is about the timeout
  const c = createWebhookClient({ allowPrivateTargets: true, timeoutMs: 30_000, ...opts });
  onTestFinished(() => c.close());
  return c;
}

describe('webhook client: failed attempts resolve, never reject', () => {
  it('reports a 500 as not ok, with its body', async () => {
    const server = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const result = await client().send({ url: server.url, headers: {}, body: '{}' });
    expect(result).toMatchObject({ ok: false, status: 500, responseBody: 'boom' });
    expect(result.retryAfterMs).toBeUndefined();
  });

  it('parses Retry-After in seconds on a 429', async () => {
    const server = await startServer((_req, res) => res.writeHead(429, { 'Retry-After': '7' }).end());
    expect(await client().send({ url: server.url, headers: {}, body: '' })).toMatchObject({ ok: false, status: 429, retryAfterMs: 7000 });
  });

  it('parses Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const atMs = Date.parse(at); // whole seconds
    const server = await startServer((_req, res) => res.writeHead(429, { 'Retry-After': at }).end());
    // the date is read against the clock at some moment of the exchange, between these two
    const before = Date.now();
    const { retryAfterMs } = await client().send({ url: server.url, headers: {}, body: '' });
    const after = Date.now();
    expect(retryAfterMs).toBeGreaterThanOrEqual(atMs - after);
    expect(retryAfterMs).toBeLessThanOrEqual(atMs - before);
  });

  it.each([
    ['0', 0],
    [' 120 ', 120_000],
    ['Thu, 01 Jan 1970 00:00:00 GMT', 0], // in the past: now
    ['Wed, 21 Oct 2015 07:28:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('parseRetryAfter(%j) = %j', (value, ms) => expect(parseRetryAfter(value)).toBe(ms));

  it('does not follow a redirect', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/hook') res.writeHead(302, { Location: '/elsewhere' }).end();
      else res.end('followed');
    });
    const result = await client().send({ url: `${server.url}/hook`, headers: {}, body: '' });
    expect(result).toMatchObject({ ok: false, status: 302, error: 'REDIRECT_NOT_FOLLOWED' });
    expect(result.headers?.location).toBe('/elsewhere');
    expect(server.requests.map((r) => r.url)).toEqual(['/hook']);
  });

  it('times out a server that accepts and never answers', async () => {
    const server = await startServer(() => {});
    const result = await client({ timeoutMs: 3000 }).send({ url: server.url, headers: {}, body: '' });
    expect(result).toMatchObject({ ok: false, error: 'TIMEOUT', responseBody: '' });
    expect(result.status).toBeUndefined();
    expect(result.latencyMs).toBeGreaterThanOrEqual(2990); // not before its time
    expect(server.requests).toHaveLength(1);
  });

  it('counts time spent queued for a socket against the timeout', async () => {
    const server = await startServer(() => {});
    // long enough for the first request to arrive on a loaded machine (2 s is short beside a CPU hog)
    const TIMEOUT_MS = 10_000;
    const c = client({ maxSockets: 1, timeoutMs: TIMEOUT_MS });
    const started = Date.now();
    const results = await Promise.all([1, 2].map(() => c.send({ url: server.url, headers: {}, body: '' })));
    const took = Date.now() - started;
    expect(results.map((r) => r.error)).toEqual(['TIMEOUT', 'TIMEOUT']);
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    // the second waited behind the first, and its time there counted: had it not, the second would
    // have had a whole timeout of its own once the first's ended, twice the timeout in all (a timer
    // never fires early, so that holds on any machine). Not 'the second never left the queue': when
    // the first's timer runs in one turn of the loop and the second's in the next (a loaded
    // machine), the second can take the freed socket for the instant it has left (1 run in 5
    // under stress-ng sent it)
    expect(took).toBeLessThan(2 * TIMEOUT_MS);
  });

  it('times out a server that trickles its body forever, keeping what arrived', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200);
      const tick = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(tick));
    });
    const result = await client({ maxResponseBytes: 1_000_000, timeoutMs: 2000 }).send({ url: server.url, headers: {}, body: '' });
    expect(result).toMatchObject({ ok: false, status: 200, error: 'TIMEOUT' });
    expect(result.responseBody).toMatch(/^\.+$/);
  });

  it('cuts an endless body at the byte cap and drops that socket', async () => {
    const server = await startServer((_req, res) => endlessBody(res));
    const c = client();
    const result = await c.send({ url: server.url, headers: {}, body: '' });
    // ok (not TIMEOUT): the cap ended the exchange
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.responseBody).toHaveLength(4096);
    await c.send({ url: server.url, headers: {}, body: '' });
    expect(server.connections()).toBe(2);
  });

  it('honours a custom byte cap', async () => {
    const server = await startServer((_req, res) => endlessBody(res));
    const result = await client({ maxResponseBytes: 100, timeoutMs: 5000 }).send({ url: server.url, headers: {}, body: '' });
    expect(result.responseBody).toBe('x'.repeat(100));
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    const result = await client().send({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '' });
    expect(result).toMatchObject({ ok: false, error: 'ECONNREFUSED', responseBody: '' });
  });

  it('reports an invalid URL or header value instead of throwing', async () => {
    const c = client();
    expect(await c.send({ url: 'not a url', headers: {}, body: '' })).toMatchObject({ ok: false, error: 'INVALID_URL' });
    const server = await startServer((_req, res) => res.end());
    const result = await c.send({ url: server.url, headers: { 'X-A': 'line\nbreak' }, body: '' });
    expect(result).toMatchObject({ ok: false, error: 'ERR_INVALID_CHAR' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to send after close()', async () => {
    const c = createWebhookClient({ allowPrivateTargets: true });
    c.close();
    expect(await c.send({ url: 'http://127.0.0.1:1/', headers: {}, body: '' })).toMatchObject({ ok: false, error: 'CLIENT_CLOSED' });
  });
});
