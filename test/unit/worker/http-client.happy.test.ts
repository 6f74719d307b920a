import { describe, expect, it, onTestFinished } from 'vitest';
import { createWebhookClient, type WebhookClientOptions } from '../../../src/worker/webhook/client/http-client.js';
import { startServer } from './servers.js';

function client(opts: Partial<WebhookClientOptions> = {}) {
  // a bound on a hang, not on a slow machine (a stalled test process runs an expired timer before
  // the answer waiting in its socket)
  const c = createWebhookClient({ allowPrivateTargets: true, timeoutMs: 15_000, ...opts });
  onTestFinished(() => c.close());
  return c;
}

describe('webhook client: successful deliveries', () => {
  it('POSTs the exact body and headers and reports a 2xx as ok', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'X-Reply': 'yes' });
      res.end('thanks');
    });
    const body = '{"eventType":"temp","eventData":{"where":"salle à manger"}}';
    const result = await client().send({
      url: `${server.url}/hook?x=1`,
      headers: { 'Content-Type': 'application/json', 'X-Service-Signature': 'abc' },
      body,
    });
    expect(result).toMatchObject({ ok: true, status: 200, responseBody: 'thanks' });
    expect(result.error).toBeUndefined();
    expect(result.headers?.['x-reply']).toBe('yes');
    expect(result.latencyMs).toBeGreaterThan(0);
    const [seen] = server.requests;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hook?x=1');
    expect(seen.body).toBe(body);
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers['x-service-signature']).toBe('abc');
    expect(seen.headers.connection).toBe('keep-alive');
  });

  it('sends PUT when asked (command webhooks)', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const result = await client().send({ url: server.url, method: 'PUT', headers: {}, body: '{}' });
    expect(result).toMatchObject({ ok: true, status: 204, responseBody: '' });
    expect(server.requests[0].method).toBe('PUT');
  });

  it('reuses one keep-alive socket for sequential requests to an origin', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const c = client();
    for (let i = 0; i < 5; i++) {
      expect((await c.send({ url: `${server.url}/n${i}`, headers: {}, body: String(i) })).ok).toBe(true);
    }
    expect(server.requests).toHaveLength(5);
    expect(server.connections()).toBe(1);
  });

  it('keeps the socket when the response fits the byte cap exactly', async () => {
    const server = await startServer((_req, res) => res.end('0123456789'));
    const c = client({ maxResponseBytes: 10 });
    for (let i = 0; i < 3; i++) expect((await c.send({ url: server.url, headers: {}, body: '' })).responseBody).toBe('0123456789');
    expect(server.connections()).toBe(1);
  });

  it('sets framing headers itself, whatever the caller passed', async () => {
    const server = await startServer((_req, res) => res.end());
    await client().send({
      url: server.url,
      headers: { 'content-length': '999', 'Transfer-Encoding': 'chunked', Connection: 'close' },
      body: 'héllo',
    });
    const [seen] = server.requests;
    expect(seen.body).toBe('héllo');
    expect(seen.headers['content-length']).toBe('6');
    expect(seen.headers['transfer-encoding']).toBeUndefined();
    expect(server.connections()).toBe(1);
  });

  it('reaches a name that resolves to loopback when private targets are allowed', async () => {
    const server = await startServer((_req, res) => res.end('local'));
    const result = await client().send({ url: `http://localhost:${server.port}/`, headers: {}, body: '' });
    expect(result).toMatchObject({ ok: true, responseBody: 'local' });
  });

  it('queues beyond maxSockets per origin instead of opening more connections', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('ok'), 50));
    const c = client({ maxSockets: 1 });
    const results = await Promise.all([1, 2, 3].map(() => c.send({ url: server.url, headers: {}, body: '' })));
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(server.connections()).toBe(1);
  });

  it('refuses nonsensical limits at construction', () => {
    expect(() => createWebhookClient({ allowPrivateTargets: true, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createWebhookClient({ allowPrivateTargets: true, maxResponseBytes: -1 })).toThrow(RangeError);
    expect(() => createWebhookClient({ allowPrivateTargets: true, maxSockets: 0 })).toThrow(RangeError);
  });
});
