// Delivery leases (docs/webhooks.md#retries, issue 23 defect 6): the lease of a claimed delivery is short
// (webhooks.leaseSeconds) so a killed worker's deliveries are retried soon (test/e2e/cluster/cluster.kill.test.ts),
// and a live worker renews it while the delivery is in flight, so an exchange longer than the lease
// is not claimed again and sent twice.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';

describe('delivery leases', () => {
  it('a delivery in flight longer than the lease is sent once: its worker renews the lease', { timeout: 60_000 }, async () => {
    // a 1 s lease, a receiver that answers after 4 s: without renewal the poll (100 ms) claims
    // the row again after 1 s and the receiver sees the delivery twice
    const h = await makeHarness({ leaseSeconds: 1, timeoutMs: 10_000 });
    const rx = await startReceiver();
    rx.reply((_r, res) => void setTimeout(() => res.end('ok'), 4000));
    const m = await h.createModule({ id: 'slow', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    await h.emit('slowOne', { n: 1 });
    // positive control: the delivery succeeded (the receiver answered the first request)
    await waitFor(async () => (await h.deliveries('slow')).some((d) => d.status === 'success'), 30_000, 'the delivery to succeed');
    expect(rx.received).toHaveLength(1);
    const [d] = await h.deliveries('slow');
    expect(d.attempts).toHaveLength(1);
    await rx.close();
  });
});
