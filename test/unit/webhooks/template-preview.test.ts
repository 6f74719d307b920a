// POST /projects/{projectId}/smartModules/templatePreview: what an event webhook would send for a
// sample event, rendered as a delivery renders it (docs/webhooks.md#templates), nothing sent; a broken template
// is 403 INVALID_PARAMETERS naming the field and the position; only a key with scope modules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedKey } from '../../helpers/store-seed.js';

let api: TestApi;
beforeAll(async () => {
  api = await makeTestApi();
});
afterAll(() => api?.close());

const path = '/projects/1/smartModules/templatePreview';
const event = { eventType: 'temperature', eventData: { celsius: 21.5, room: 'hall' }, timestamp: '2026-11-25T00:00:00.000Z', homeId: 7, originDeviceId: 3 };

describe('template preview', () => {
  it('renders headers and body against the sample event as a receiver would get them', async () => {
    const r = await api.req('POST', path, {
      token: api.adminKey,
      body: {
        headers: { 'X-Room': '{{eventData.room}}', 'Content-Type': 'application/json' },
        body: '{"t": {{eventData.celsius}}, "dev": {{originDeviceId}}, "all": "{{eventData}}"}',
        event,
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.headers['X-Room']).toBe('hall');
    expect(JSON.parse(r.body.body)).toEqual({ t: 21.5, dev: 3, all: JSON.stringify(event.eventData) });
  });

  it('sends the docs/webhooks.md#event-webhook body as JSON when there is no body template', async () => {
    const r = await api.req('POST', path, { token: api.adminKey, body: { event } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.body)).toEqual(event);
  });

  it('answers a broken template with the field and its position', async () => {
    const body = '{"t": {{eventData.celsius}';
    const r = await api.req('POST', path, { token: api.adminKey, body: { body, event } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    const issue = r.body.data.issues[0];
    expect(issue.path).toBe('eventWebhook.body');
    expect(issue.position).toBeGreaterThanOrEqual(6);
    expect(issue.position).toBeLessThanOrEqual(body.length);
  });

  it('refuses a body that is not JSON after substitution when the content type is JSON', async () => {
    const r = await api.req('POST', path, { token: api.adminKey, body: { body: '{"room": {{eventData.room}}}', event } });
    expect(r.status).toBe(403);
    expect(r.body.data.issues[0].message).toMatch(/JSON/);
  });

  it('needs a project key with scope modules, and bad input is a reason', async () => {
    const other = await seedKey(api.deps as Parameters<typeof seedKey>[0], { scopes: ['devices'] });
    expect((await api.req('POST', path, { token: other.key, body: { event } })).status).toBe(403);
    expect((await api.req('POST', path, { body: { event } })).status).toBe(401);
    const bad = await api.req('POST', path, { token: api.adminKey, body: { event: { eventData: 'nope' } } });
    expect(bad.status).toBe(403);
    expect(bad.body.data.issues[0].path).toBe('event.eventData');
  });

  // issue 23 defect 6: the preview accepted headers that saving a module refuses, and a 100 KB header name
  describe('checks the templates exactly as saving a module does', () => {
    const modulePath = '/projects/1/smartModules';
    let seq = 0;
    const create = (headers: Record<string, string>) =>
      api.req('POST', modulePath, {
        token: api.adminKey,
        body: { id: `preview-${++seq}`, moduleType: 'webhooks', eventWebhook: { url: 'https://8.8.8.8/hook', headers } },
      });
    const preview = (headers: Record<string, string>) => api.req('POST', path, { token: api.adminKey, body: { headers, event } });

    it.each([
      ['a header the service sets', { 'X-Service-Signature': 'forged' }],
      ['a reserved header in other case', { 'x-mode-signature': '{{eventType}}' }],
      ['a 100 KB header name', { ['X-' + 'a'.repeat(100_000)]: 'v' }],
      ['a header name that is not an HTTP token', { 'X Bad': 'v' }],
      ['a malformed value template', { 'X-Room': '{{eventData.room' }],
    ])('refuses %s in both, with the same reason and field', async (_what, headers) => {
      const [p, m] = [await preview(headers), await create(headers)];
      expect(m.status).toBe(403);
      expect(p.status).toBe(403);
      expect(p.body.reason).toBe(m.body.reason);
      // the same header named (the preview's body holds `headers` at its top, a module's under eventWebhook)
      const field = (r: typeof p) => String(r.body.data.issues[0].path).replace(/^eventWebhook\./, '');
      expect(field(p)).toBe(field(m));
    });

    it('accepts in both what a module may hold (positive control)', async () => {
      const headers = { 'X-Room': '{{eventData.room}}', Authorization: 'Bearer x' };
      expect((await preview(headers)).status).toBe(200);
      expect((await create(headers)).status).toBe(201);
    });
  });
});
