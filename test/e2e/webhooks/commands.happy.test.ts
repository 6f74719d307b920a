// The command webhook trigger end to end (docs/webhooks.md#command-webhook; docs/webhooks.md): 204 once queued, the
// docs/webhooks.md#command-webhook body signed with the command webhook's key.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

describe('command webhook', () => {
  it('answers 204 once queued and POSTs the docs/webhooks.md#command-webhook body, signed with the command key', async () => {
    const h = await makeHarness();
    const rx = await startReceiver('/cmd');
    const m = await h.createModule({ id: 'hooks', commandWebhook: { url: rx.url } });
    rx.trust(m.commandWebhook.key);
    const r = await h.t.req('PUT', `/homes/${h.homeId}/smartModules/hooks/command`, {
      token: h.t.adminKey,
      body: { action: 'turn-on', parameters: { level: 3 } },
    });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    await waitFor(() => rx.received.length === 1);
    const got = rx.received[0];
    expect(got.verified).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
    expect(Object.keys(got.body)).toEqual(['action', 'parameters', 'timestamp', 'homeId', 'originProjectKeyID', 'originProjectKeyName']);
    expect(got.body).toMatchObject({ action: 'turn-on', parameters: { level: 3 }, homeId: h.homeId, originProjectKeyName: 'admin' });
  });

  it('sends parameters {} when absent', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    await h.createModule({ id: 'hooks', commandWebhook: { url: rx.url } });
    expect((await h.t.req('PUT', `/homes/${h.homeId}/smartModules/hooks/command`, { token: h.t.adminKey, body: { action: 'reset' } })).status).toBe(204);
    await waitFor(() => rx.received.length === 1);
    expect(rx.received[0].body.parameters).toEqual({});
  });
});
