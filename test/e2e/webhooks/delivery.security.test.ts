// What a receiver (or a module's settings) cannot do to the service or to other receivers: hold
// up other modules' deliveries, flood it with an endless answer, forge the signature headers,
// or reach a private address at dial time when private targets are not allowed.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

describe('isolation between receivers', () => {
  it('a receiver that never answers does not delay deliveries to another module', async () => {
    // a timeout longer than the test's wait: an attempt to the hanging receiver can only end by it
    const h = await makeHarness({ timeoutMs: 120_000, concurrency: 4 });
    const hang = await startReceiver();
    hang.reply(() => {});
    const fast = await startReceiver();
    await h.createModule({ id: 'aaa-hanging', eventWebhook: { url: hang.url } });
    await h.createModule({ id: 'zzz-fast', eventWebhook: { url: fast.url } });
    for (let i = 0; i < 20; i++) await h.emit('tick', { i });
    await waitFor(() => hang.received.length > 0, 60_000, 'the hanging receiver to be holding a request');
    await waitFor(() => fast.received.length === 20, 60_000, 'the fast receiver to get all 20');
    expect(fast.received.map((r) => r.body.eventData.i).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    // all 20 arrived while every attempt to the hanging receiver was still waiting for an answer
    // (none has ended: none has an attempt recorded), so none waited for that receiver
    expect((await h.deliveries('aaa-hanging')).flatMap((d) => d.attempts)).toEqual([]);
    // the hanging lane holds only a slot or two
    expect(hang.received.length).toBeLessThanOrEqual(2);
  });

  it('cuts off a response body that never ends and keeps its first 4 KiB', async () => {
    // the byte cap ends the exchange, not the timer, however slow the machine
    const h = await makeHarness({ timeoutMs: 120_000 });
    const rx = await startReceiver();
    rx.reply((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('flood');
    await waitFor(async () => (await h.deliveries('hooks'))[0]?.status === 'success', 60_000, 'the delivery to succeed');
    const [d] = await h.deliveries('hooks');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].response).toBe('y'.repeat(4096));
  });
});

describe('signature headers', () => {
  it('sets the signature and delivery headers last: a template cannot forge or duplicate them', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url, headers: { 'X-Note': '{{ eventType }}' } } });
    rx.trust(m.eventWebhook.key);
    // saving refuses them (see modules.error), so plant them in the store as an old row might have
    const row = (await h.t.deps.store.modules.get(1, 'hooks'))!;
    const headers = { 'x-service-signature': 'forged', 'X-MODE-SIGNATURE': 'forged', 'X-Service-Delivery': 'forged', 'X-Note': '{{ eventType }}' };
    await h.t.deps.store.modules.update(1, 'hooks', { eventWebhook: { ...row.eventWebhook!, headers }, modificationTime: new Date().toISOString() });
    await h.emit('forgery');
    await waitFor(() => rx.received.length === 1);
    const r = rx.received[0];
    expect(r.verified).toBe(true);
    expect(r.headers['x-service-signature']).not.toContain('forged');
    expect(r.headers['x-mode-signature']).toBe(r.headers['x-service-signature']);
    expect(r.headers['x-service-delivery']).not.toContain('forged');
    expect(r.headers['x-note']).toBe('forgery');
  });
});

describe('target policy at dial time', () => {
  it('refuses to connect to a loopback receiver when private targets are not allowed, even if the module was saved', async () => {
    // the API allowed it (as a module saved before the policy changed would be), the worker does not
    const h = await makeHarness({ allowPrivateTargets: true, workerAllowPrivate: false });
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('ssrf');
    await waitFor(async () => (await h.deliveries('hooks'))[0]?.status === 'failed');
    const [d] = await h.deliveries('hooks');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].error).toBe('TARGET_NOT_ALLOWED');
    expect(rx.received).toHaveLength(0);
  });

  it('judges a host name by the address it resolves to when dialling (localhost)', async () => {
    const h = await makeHarness({ allowPrivateTargets: true, workerAllowPrivate: false });
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: `http://localhost:${rx.port}/hook` } });
    await h.emit('rebind');
    await waitFor(async () => (await h.deliveries('hooks'))[0]?.status === 'failed');
    expect((await h.deliveries('hooks'))[0].attempts[0].error).toBe('TARGET_NOT_ALLOWED');
    expect(rx.received).toHaveLength(0);
  });
});
