// Event webhooks end to end: the docs/webhooks.md#event-webhook body, the docs/webhooks.md#verifying-signatures signature as an independent
// receiver checks it, subscriptions, the outbox, and advanced mode (docs/webhooks.md#templates).
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { specSignature, startReceiver, waitFor } from './receiver.js';

describe('event webhook', () => {
  it('POSTs the docs/webhooks.md#event-webhook body with a signature the receiver verifies', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    await h.emit('doorOpened', { door: 'front', n: 1.5 });
    await waitFor(() => rx.received.length === 1, 5000, 'the delivery');
    const r = rx.received[0];
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.verified).toBe(true);
    expect(r.headers['x-mode-signature']).toBe(r.headers['x-service-signature']);
    expect(r.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers['x-service-delivery']).toMatch(/\S+/);
    expect(Object.keys(r.body)).toEqual(['eventType', 'eventData', 'timestamp', 'homeId', 'originDeviceId', 'originDeviceClass']);
    expect(r.body).toMatchObject({
      eventType: 'doorOpened',
      eventData: { door: 'front', n: 1.5 },
      homeId: h.homeId,
      originDeviceId: h.deviceId,
      originDeviceClass: 'default',
    });
    expect(r.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('fails verification when one byte of the body or the URL changes', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('ping', { a: 1 });
    await waitFor(() => rx.received.length === 1);
    const { raw, headers } = rx.received[0];
    const key = m.eventWebhook.key;
    expect(specSignature(key, rx.url, raw)).toBe(headers['x-service-signature']);
    const tampered = Buffer.from(raw);
    tampered[tampered.length - 2] ^= 1;
    expect(specSignature(key, rx.url, tampered)).not.toBe(headers['x-service-signature']);
    expect(specSignature(key, rx.url + 'x', raw)).not.toBe(headers['x-service-signature']);
    expect(specSignature(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'), rx.url, raw)).not.toBe(headers['x-service-signature']);
  });

  it('spells originProjectKeyID with ID for events sent with a project key, through PUT /devices/{id}/event', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    const put = await h.t.req('PUT', `/devices/${h.deviceId}/event`, { token: h.t.adminKey, body: { eventType: 'fromProgram', eventData: { x: 1 } } });
    expect(put.status).toBe(204);
    await waitFor(() => rx.received.length === 1);
    const b = rx.received[0].body;
    expect(rx.received[0].verified).toBe(true);
    expect(b.originProjectKeyID).toMatch(/\S+/);
    expect(b.originProjectKeyName).toBe('admin');
    expect(b).not.toHaveProperty('originProjectKeyId');
    expect(b).not.toHaveProperty('originDeviceId');
    expect(b.homeId).toBe(h.homeId);
  });

  it('delivers each event to every module subscribed to its type, and to no other', async () => {
    const h = await makeHarness();
    const all = await startReceiver();
    const some = await startReceiver();
    const none = await startReceiver();
    await h.createModule({ id: 'all-events', eventWebhook: { url: all.url } });
    await h.createModule({ id: 'some-events', eventWebhook: { url: some.url, subscriptions: 'doorOpened\n_deviceKVSaved_' } });
    await h.createModule({ id: 'no-match', eventWebhook: { url: none.url, subscriptions: 'somethingElse' } });
    await h.emit('doorOpened');
    await h.emit('windowOpened');
    await h.emit('_deviceKVSaved_', { key: 'k', value: 1 });
    await waitFor(() => all.received.length === 3 && some.received.length === 2);
    expect(all.received.map((r) => r.body.eventType).sort()).toEqual(['_deviceKVSaved_', 'doorOpened', 'windowOpened']);
    expect(some.received.map((r) => r.body.eventType).sort()).toEqual(['_deviceKVSaved_', 'doorOpened']);
    // deliveries are committed with their event (the next test): once the emits resolved, a
    // delivery to the module that matches nothing would already be in the queue
    expect(await h.deliveries('no-match')).toEqual([]);
    expect(none.received).toHaveLength(0);
  });

  it('sends events of devices in no home to no webhook (docs/webhooks.md)', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    await h.emit('homeless', {}, { homeId: undefined });
    await h.emit('housed');
    await waitFor(() => rx.received.length === 1);
    // committed with the event: the one delivery row is all there will ever be
    expect(rx.received.map((r) => r.body.eventType)).toEqual(['housed']);
    expect(await h.deliveries('hooks')).toHaveLength(1);
  });

  it('commits the deliveries with the event: they are in the queue when emitEvent resolves', async () => {
    const h = await makeHarness({ startWorker: false });
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    const eventId = await h.emit('queued', { i: 1 });
    const rows = await h.deliveries('hooks');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', kind: 'event', eventId, eventType: 'queued' });
    expect(JSON.parse(rows[0].payload).eventData).toEqual({ i: 1 });
    await h.worker.start();
    await waitFor(() => rx.received.length === 1);
    expect(rx.received[0].headers['x-service-delivery']).toBe(rows[0].id);
  });
});

describe('advanced mode (docs/webhooks.md#templates)', () => {
  it('sends templated headers and body, signed over the bytes actually sent', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({
      id: 'templated',
      eventWebhook: {
        url: rx.url,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Event': '{{ eventType }}', 'X-Data': '{{eventData}}', 'X-Name': '{{ eventData.name }}' },
        body: 'type={{eventType}} bar={{ eventData.foo.bar }} second={{eventData.buz[1]}} missing=[{{ eventData.nope }}] home={{homeId}}',
      },
    });
    rx.trust(m.eventWebhook.key);
    await h.emit('reading', { foo: { bar: 'baz' }, buz: [1, 2.5], name: 'Zoë\n' });
    await waitFor(() => rx.received.length === 1);
    const r = rx.received[0];
    expect(r.verified).toBe(true);
    expect(r.raw.toString()).toBe(`type=reading bar=baz second=2.5 missing=[] home=${h.homeId}`);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-event']).toBe('reading');
    expect(r.headers['x-data']).toBe('{\\"foo\\":{\\"bar\\":\\"baz\\"},\\"buz\\":[1,2.5],\\"name\\":\\"Zo%C3%AB\\\\n\\"}');
    expect(r.headers['x-name']).toBe('Zo%C3%AB%0A');
  });

  it('sends a JSON body template as JSON', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({
      id: 'json-tmpl',
      eventWebhook: { url: rx.url, body: '{"text": "{{eventType}} at {{timestamp}}", "data": "{{eventData}}", "n": {{eventData.n}}}' },
    });
    rx.trust(m.eventWebhook.key);
    await h.emit('measured', { n: 7 });
    await waitFor(() => rx.received.length === 1);
    const r = rx.received[0];
    expect(r.verified).toBe(true);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.text).toMatch(/^measured at \d{4}-/);
    expect(JSON.parse(r.body.data)).toEqual({ n: 7 });
    expect(r.body.n).toBe(7);
  });
});
