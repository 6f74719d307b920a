// Hand-off (src/domain/webhook/handoff.ts): new event deliveries go straight to a worker of the
// same process that has room, written already leased to it in the event's transaction; the rest
// wait in the queue. Either way each accepted event is delivered, once, and none is lost when the
// worker stops with rows handed to it.
import { describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/worker/index.js';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';
import { startThread } from '../../../src/adapters/thread-port.js';

const ns = (rx: { received: { body: any }[] }) => rx.received.map((r) => r.body.eventData.n as number).sort((a, b) => a - b);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('hand-off of new deliveries to a worker of this process', () => {
  it('an idle worker gets new deliveries without a claim or a bus wake-up', async () => {
    // a poll too slow to matter: only the hand-off (or a `work` message) can start these
    const h = await makeHarness({ pollMs: 600_000 });
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    let wakeUps = 0;
    const off = h.t.deps.bus.subscribe('work', () => wakeUps++);
    // the first event may find the worker still settling its start-up claim; from then on it is idle
    await h.emit('tick', { n: 0 });
    await waitFor(() => rx.received.length === 1, 5000, 'the first delivery');
    await waitFor(async () => (await h.deliveries('hooks')).every((d) => d.status === 'success'), 5000, 'its outcome');
    wakeUps = 0;
    for (const n of range(5)) await h.emit('tick', { n: n + 1 });
    await waitFor(() => rx.received.length === 6, 5000, 'the deliveries');
    off();
    expect(wakeUps).toBe(0);
    expect(ns(rx)).toEqual(range(6));
    expect(rx.received.every((r) => r.verified)).toBe(true);
    await waitFor(
      async () => (await h.deliveries('hooks')).every((d) => d.status === 'success' && d.attempts.length === 1 && d.claimedBy === null),
      5000,
      'outcomes recorded',
    );
  });

  it('rows beyond the worker’s room wait in the queue and are delivered too, each once', async () => {
    const h = await makeHarness({ concurrency: 1 });
    const rx = await startReceiver();
    // a slow receiver: the single slot is busy while the other events arrive
    rx.reply((_r, res) => setTimeout(() => res.end('ok'), 30));
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    let wakeUps = 0;
    const off = h.t.deps.bus.subscribe('work', () => wakeUps++);
    await Promise.all(range(12).map((n) => h.emit('tick', { n })));
    await waitFor(() => rx.received.length >= 12, 10_000, 'every delivery');
    off();
    expect(wakeUps).toBeGreaterThan(0); // some went to the queue
    expect(ns(rx)).toEqual(range(12));
    const ids = rx.received.map((r) => r.headers['x-service-delivery']);
    expect(new Set(ids).size).toBe(12);
  });

  it('rows handed to a worker that stops are given back and delivered by the next one', async () => {
    const h = await makeHarness({ concurrency: 4 });
    const rx = await startReceiver();
    rx.reply((_r, res) => setTimeout(() => res.end('ok'), 20));
    const m = await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });
    rx.trust(m.eventWebhook.key);
    // events still committing while the worker closes: some are handed to it, some not
    const emitted = Promise.all(range(30).map((n) => h.emit('tick', { n })));
    await h.worker.close();
    await emitted;
    const next = createWorker({
      threads: startThread,
      ...h.t.deps,
      webhooks: { allowPrivateTargets: true, timeoutMs: 2000, retryScheduleSeconds: [0.1], pollMs: 100, concurrency: 8 },
      closeGraceMs: 200,
    });
    await next.start();
    try {
      await waitFor(() => new Set(ns(rx)).size === 30, 10_000, 'every event delivered');
      await waitFor(async () => (await h.deliveries('hooks')).every((d) => d.status === 'success'), 5000, 'every outcome recorded');
    } finally {
      await next.close();
    }
    expect([...new Set(ns(rx))].sort((a, b) => a - b)).toEqual(range(30));
    expect(rx.received.every((r) => r.verified)).toBe(true);
  });
});
