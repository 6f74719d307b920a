// The same worker delivers the other webhook kinds of the queue: batches of a `webhook` data
// source (docs/concepts.md#data-sources), signed like §9 with the source's key. (The data-source API itself is
// tested with its own routes; this checks the hand-over to the webhook worker.)
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

describe('data source webhooks through the webhook worker', () => {
  it('POSTs a signed batch of posted records to the source URL', async () => {
    const h = await makeHarness();
    const rx = await startReceiver('/data');
    const created = await h.t.req('POST', '/projects/1/dataSources', { token: h.t.adminKey, body: { id: 'sink', name: 'sink', type: 'webhook', url: rx.url } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    rx.trust(created.body.key);
    const post = await h.t.req('POST', `/devices/${h.deviceId}/data`, { token: h.deviceKey, body: { data: [{ t: 21.5 }, { t: 22 }] } });
    expect(post.status).toBe(200);
    await waitFor(() => rx.received.length === 1);
    const got = rx.received[0];
    expect(got.verified).toBe(true);
    expect(got.headers['x-mode-signature']).toBe(got.headers['x-service-signature']);
    expect(got.body.data).toEqual([{ t: 21.5 }, { t: 22 }]);
    await waitFor(
      async () => (await h.t.deps.store.deliveries.list({ projectId: 1, moduleId: 'sink' }, { skip: 0, limit: 10 })).items[0]?.status === 'success',
    );
  });
});
