// Receivers that fail: what is retried (connection errors, timeouts, 5xx, 429 with Retry-After),
// what fails at once (other 4xx, redirects), what disables a webhook (410), what is dropped
// without sending (a template that yields invalid JSON), and what the log says.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

const settled = (s: string) => s === 'success' || s === 'failed' || s === 'dropped';

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('retries', () => {
  it('retries a 500 and succeeds on the next 200, with the same delivery id and signature', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    rx.reply((_r, res) => {
      res.statusCode = rx.received.length === 1 ? 500 : 200;
      res.end(rx.received.length === 1 ? 'boom' : 'ok');
    });
    await h.emit('flaky');
    await waitFor(async () => (await h.deliveries('hooks'))[0]?.status === 'success');
    expect(rx.received).toHaveLength(2);
    expect(rx.received[0].headers['x-service-delivery']).toBe(rx.received[1].headers['x-service-delivery']);
    expect(rx.received[0].headers['x-service-signature']).toBe(rx.received[1].headers['x-service-signature']);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    const [d] = await h.deliveries('hooks');
    expect(d.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
    expect(d.attempts[0].response).toBe('boom');
  });

  it('honours Retry-After on 429', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.reply((_r, res) => {
      if (rx.received.length === 1) {
        res.writeHead(429, { 'retry-after': '1' });
        res.end();
      } else res.end('ok');
    });
    await h.emit('throttled');
    await waitFor(() => rx.received.length === 2, 5000);
    const gap = rx.received[1].time - rx.received[0].time;
    // the schedule says 0.1 s; the receiver asked for 1 s
    expect(gap).toBeGreaterThanOrEqual(950);
    await waitFor(async () => (await h.deliveries('hooks'))[0].status === 'success');
  });

  it('retries connection errors and timeouts, then stays failed when out of retries', async () => {
    const h = await makeHarness({ timeoutMs: 300, retryScheduleSeconds: [0.05, 0.05] });
    const port = await closedPort();
    const hang = await startReceiver();
    hang.reply(() => {}); // never answers
    await h.createModule({ id: 'refused', eventWebhook: { url: `http://127.0.0.1:${port}/x` } });
    await h.createModule({ id: 'hanging', eventWebhook: { url: hang.url } });
    await h.emit('lost');
    await waitFor(async () => (await h.deliveries('refused'))[0]?.status === 'failed', 5000);
    await waitFor(async () => (await h.deliveries('hanging'))[0]?.status === 'failed', 5000);
    const [refused] = await h.deliveries('refused');
    expect(refused.attempts.map((a) => a.error)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    const [hung] = await h.deliveries('hanging');
    expect(hung.attempts.map((a) => a.error)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
    expect(hang.received).toHaveLength(3);
    const logs = await h.logs();
    expect(logs.some((l) => l.includes(refused.id) && l.includes('failed') && l.includes('ECONNREFUSED'))).toBe(true);
  });
});

describe('permanent failures', () => {
  it('fails a 400 at once, without retrying, and logs it', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    rx.reply((_r, res) => {
      res.statusCode = 400;
      res.end('bad');
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('refused');
    await waitFor(async () => settled((await h.deliveries('hooks'))[0]?.status ?? ''));
    // `failed` is final: no attempt comes after it, so the one request and one attempt are all
    expect(rx.received).toHaveLength(1);
    const [d] = await h.deliveries('hooks');
    expect(d.status).toBe('failed');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ statusCode: 400, response: 'bad' });
    expect((await h.logs()).some((l) => l.includes(d.id) && l.includes('HTTP 400'))).toBe(true);
  });

  it('never follows a redirect', async () => {
    const h = await makeHarness();
    const target = await startReceiver();
    const rx = await startReceiver();
    rx.reply((_r, res) => {
      res.writeHead(307, { location: target.url });
      res.end();
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('moved');
    await waitFor(async () => settled((await h.deliveries('hooks'))[0]?.status ?? ''));
    const [d] = await h.deliveries('hooks');
    expect(d.status).toBe('failed');
    expect(d.attempts[0]).toMatchObject({ statusCode: 307, error: 'REDIRECT_NOT_FOLLOWED' });
    expect(target.received).toHaveLength(0);
  });

  it('disables the webhook on 410, logs it, queues nothing more for it, and turns on again with enabled: true', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    rx.reply((_r, res) => {
      res.statusCode = 410;
      res.end();
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('gone');
    await waitFor(async () => settled((await h.deliveries('hooks'))[0]?.status ?? ''));
    const mod = await h.t.req('GET', '/projects/1/smartModules/hooks', { token: h.t.adminKey });
    expect(mod.body.eventWebhook).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    expect((await h.logs()).some((l) => l.includes('disabled') && l.includes('410'))).toBe(true);
    await h.emit('afterGone');
    expect(await h.deliveries('hooks')).toHaveLength(1);
    expect(rx.received).toHaveLength(1);

    rx.reply((_r, res) => res.end('back'));
    const on = await h.t.req('PATCH', '/projects/1/smartModules/hooks', { token: h.t.adminKey, body: { eventWebhook: { enabled: true } } });
    expect(on.status).toBe(200);
    expect(on.body.eventWebhook.enabled).toBe(true);
    await h.emit('backAgain');
    await waitFor(() => rx.received.length === 2);
    expect(rx.received[1].body.eventType).toBe('backAgain');
  });
});

describe('templates that cannot be sent', () => {
  it('drops a delivery whose body is not valid JSON after substitution, sends nothing, and logs why', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    // valid template, but eventData.raw is substituted as plain text into a JSON position
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url, body: '{"value": {{ eventData.raw }}}' } });
    await h.emit('bad', { raw: 'not json' });
    await h.emit('good', { raw: 42 });
    await waitFor(async () => (await h.deliveries('hooks')).every((d) => settled(d.status)));
    const ds = await h.deliveries('hooks');
    const bad = ds.find((d) => d.eventType === 'bad')!;
    expect(bad.status).toBe('dropped');
    expect(bad.attempts[0].error).toMatch(/^TEMPLATE_ERROR: body: body is not valid JSON after substitution at position \d+/);
    expect(rx.received.map((r) => r.raw.toString())).toEqual(['{"value": 42}']);
    expect((await h.logs()).some((l) => l.includes(bad.id) && l.includes('dropped') && l.includes('not valid JSON'))).toBe(true);
  });
});
