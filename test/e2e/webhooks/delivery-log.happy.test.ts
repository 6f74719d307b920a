// What an operator sees (docs/webhooks.md, docs/operations.md#health-and-metrics): the delivery log with every attempt, redelivery under
// the same delivery id, and the worker's metrics.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

describe('delivery log', () => {
  it('lists deliveries newest first and shows one with its payload and every attempt', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    rx.reply((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('thanks');
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('first');
    await h.emit('second');
    await waitFor(async () => (await h.deliveries('hooks')).every((d) => d.status === 'success'));
    const list = await h.t.req('GET', '/projects/1/smartModules/hooks/deliveries', { token: h.t.adminKey });
    expect(list.status).toBe(200);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-1/2');
    expect(list.body.map((d: any) => d.eventType)).toEqual(['second', 'first']);
    const d = list.body[0];
    expect(d).toMatchObject({ moduleId: 'hooks', kind: 'event', status: 'success', attemptCount: 1, lastAttempt: { statusCode: 200 } });
    expect(d).not.toHaveProperty('payload');
    const one = await h.t.req('GET', `/projects/1/smartModules/hooks/deliveries/${d.id}`, { token: h.t.adminKey });
    expect(one.status).toBe(200);
    expect(one.body.payload).toMatchObject({ eventType: 'second', homeId: h.homeId });
    expect(one.body.attempts).toHaveLength(1);
    expect(one.body.attempts[0]).toMatchObject({ statusCode: 200, response: 'thanks' });
    expect(typeof one.body.attempts[0].latencyMs).toBe('number');
    expect(one.body.attempts[0].time).toMatch(/Z$/);
    const filtered = await h.t.req('GET', '/projects/1/smartModules/hooks/deliveries?status=failed', { token: h.t.adminKey });
    expect(filtered.body).toEqual([]);
    expect(filtered.headers.get('vnd.tinkermode.range')).toBe('*/0');
  });

  it('redelivers with the same delivery id and a new attempt (202)', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    await h.emit('again');
    await waitFor(async () => (await h.deliveries('hooks'))[0]?.status === 'success');
    const [d] = await h.deliveries('hooks');
    const r = await h.t.req('POST', `/projects/1/smartModules/hooks/deliveries/${d.id}/redeliver`, { token: h.t.adminKey });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: d.id, status: 'pending' });
    await waitFor(() => rx.received.length === 2);
    expect(rx.received.map((x) => x.headers['x-service-delivery'])).toEqual([d.id, d.id]);
    expect(rx.received[1].raw.equals(rx.received[0].raw)).toBe(true);
    expect(rx.received.every((x) => x.verified)).toBe(true);
    await waitFor(async () => (await h.deliveries('hooks'))[0].attempts.length === 2);
  });

  it('reports deliveries and queue depth in /metrics', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('counted');
    await waitFor(() => rx.received.length === 1);
    await waitFor(async () => (await h.deliveries('hooks'))[0].status === 'success');
    const r = await h.t.app.request('/metrics');
    const text = await r.text();
    expect(text).toMatch(/hearth_webhook_deliveries_total\{kind="event",outcome="success"\} 1/);
    expect(text).toMatch(/hearth_webhook_queue_depth\{status="pending"\} 0/);
    expect(text).toContain('hearth_webhook_oldest_pending_age_seconds 0');
    expect(text).toContain('hearth_webhook_attempt_duration_seconds_count{kind="event"} 1');
  });
});
