// Smart modules CRUD (docs/webhooks.md) through the HTTP API: generated keys shown at creation and
// rotation only, subscriptions one per line with `*` by default, PATCH merging, deletion, and
// the home's view of its project's modules.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { specSignature, startReceiver, waitFor } from './receiver.js';

const MASKED = /^whk\.\*\*\*\*.{4}$/;
const FULL = /^whk\.[A-Za-z0-9_-]{43}$/;

describe('smart modules', () => {
  it('creates a module with generated keys shown in full once, then masked', async () => {
    const h = await makeHarness({ startWorker: false });
    const created = await h.createModule({
      id: 'my-hooks_1',
      description: 'to the backend',
      eventWebhook: { url: 'http://127.0.0.1:9/events' },
      commandWebhook: { url: 'http://127.0.0.1:9/commands' },
    });
    expect(created).toMatchObject({
      id: 'my-hooks_1',
      projectId: 1,
      moduleType: 'webhooks',
      description: 'to the backend',
      eventWebhook: { url: 'http://127.0.0.1:9/events', subscriptions: '*', enabled: true },
      commandWebhook: { url: 'http://127.0.0.1:9/commands', enabled: true },
    });
    expect(created.eventWebhook.key).toMatch(FULL);
    expect(created.commandWebhook.key).toMatch(FULL);
    expect(created.eventWebhook.key).not.toBe(created.commandWebhook.key);

    const got = await h.t.req('GET', '/projects/1/smartModules/my-hooks_1', { token: h.t.adminKey });
    expect(got.status).toBe(200);
    expect(got.body.eventWebhook.key).toMatch(MASKED);
    expect(got.body.eventWebhook.key.slice(-4)).toBe(created.eventWebhook.key.slice(-4));
    expect(got.body.commandWebhook.key).toMatch(MASKED);

    const list = await h.t.req('GET', '/projects/1/smartModules', { token: h.t.adminKey });
    expect(list.status).toBe(200);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-0/1');
    expect(list.body).toHaveLength(1);
    expect(list.body[0].eventWebhook.key).toMatch(MASKED);
  });

  it('takes subscriptions one per line and answers them so; blank means all', async () => {
    const h = await makeHarness({ startWorker: false });
    const a = await h.createModule({
      id: 'lines',
      eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: ' doorOpened \r\n\n_deviceConnected_\ndoorOpened' },
    });
    expect(a.eventWebhook.subscriptions).toBe('doorOpened\n_deviceConnected_');
    const b = await h.createModule({ id: 'blank', eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: '  ' } });
    expect(b.eventWebhook.subscriptions).toBe('*');
    const c = await h.createModule({ id: 'array', eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: ['a-b', 'c_d'] } });
    expect(c.eventWebhook.subscriptions).toBe('a-b\nc_d');
  });

  it('rotates keys: the new ones are shown once and sign from then on', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const created = await h.createModule({ id: 'rotating', eventWebhook: { url: rx.url }, commandWebhook: { url: rx.url } });
    const r = await h.t.req('POST', '/projects/1/smartModules/rotating/keys', { token: h.t.adminKey, body: { webhook: 'event' } });
    expect(r.status).toBe(200);
    expect(r.body.eventWebhook.key).toMatch(FULL);
    expect(r.body.eventWebhook.key).not.toBe(created.eventWebhook.key);
    expect(r.body.commandWebhook.key).toMatch(MASKED);
    expect(r.body.commandWebhook.key.slice(-4)).toBe(created.commandWebhook.key.slice(-4));
    await h.emit('afterRotation');
    await waitFor(() => rx.received.length === 1);
    const got = rx.received[0];
    expect(specSignature(r.body.eventWebhook.key, rx.url, got.raw)).toBe(got.headers['x-service-signature']);
    expect(specSignature(created.eventWebhook.key, rx.url, got.raw)).not.toBe(got.headers['x-service-signature']);

    const both = await h.t.req('POST', '/projects/1/smartModules/rotating/keys', { token: h.t.adminKey });
    expect(both.body.eventWebhook.key).toMatch(FULL);
    expect(both.body.commandWebhook.key).toMatch(FULL);
  });

  it('PATCH merges fields, adds a webhook with a new key, and null removes one', async () => {
    const h = await makeHarness({ startWorker: false });
    const created = await h.createModule({ id: 'patched', eventWebhook: { url: 'http://127.0.0.1:9/a', subscriptions: 'x' } });
    const p1 = await h.t.req('PATCH', '/projects/1/smartModules/patched', {
      token: h.t.adminKey,
      body: { description: 'now described', eventWebhook: { headers: { 'X-Kind': '{{eventType}}' } }, commandWebhook: { url: 'http://127.0.0.1:9/c' } },
    });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({
      description: 'now described',
      eventWebhook: { url: 'http://127.0.0.1:9/a', subscriptions: 'x', headers: { 'X-Kind': '{{eventType}}' } },
    });
    expect(p1.body.eventWebhook.key).toMatch(MASKED);
    expect(p1.body.eventWebhook.key.slice(-4)).toBe(created.eventWebhook.key.slice(-4));
    expect(p1.body.commandWebhook.key).toMatch(FULL); // new webhook: its key is shown once
    const p2 = await h.t.req('PATCH', '/projects/1/smartModules/patched', { token: h.t.adminKey, body: { eventWebhook: null, description: null } });
    expect(p2.status).toBe(200);
    expect(p2.body).not.toHaveProperty('eventWebhook');
    expect(p2.body).not.toHaveProperty('description');
    expect(p2.body.commandWebhook.url).toBe('http://127.0.0.1:9/c');
  });

  it('deletes a module with its queued deliveries', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'doomed', eventWebhook: { url: 'http://127.0.0.1:9/' } });
    await h.emit('queued');
    expect(await h.deliveries('doomed')).toHaveLength(1);
    const d = await h.t.req('DELETE', '/projects/1/smartModules/doomed', { token: h.t.adminKey });
    expect(d.status).toBe(204);
    expect(await h.deliveries('doomed')).toHaveLength(0);
    expect((await h.t.req('GET', '/projects/1/smartModules/doomed', { token: h.t.adminKey })).status).toBe(404);
    await h.emit('afterDelete');
    expect(await h.deliveries('doomed')).toHaveLength(0);
  });

  it("lists the home's project modules: settings for a project key, ids and descriptions for a member", async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'home-hooks', description: 'd', eventWebhook: { url: 'http://127.0.0.1:9/' } });
    const r = await h.t.req('GET', `/homes/${h.homeId}/smartModules`, { token: h.t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body[0]).toMatchObject({ id: 'home-hooks', eventWebhook: { url: 'http://127.0.0.1:9/' } });
    expect(r.body[0].eventWebhook.key).toMatch(MASKED);

    const token = await h.userToken();
    const asMember = await h.t.req('GET', `/homes/${h.homeId}/smartModules`, { token });
    expect(asMember.status).toBe(200);
    expect(asMember.body).toEqual([{ id: 'home-hooks', moduleType: 'webhooks', description: 'd' }]);
  });
});
