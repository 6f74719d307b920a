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
});
