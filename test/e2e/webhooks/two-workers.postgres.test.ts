// Two workers on one PostgreSQL queue, each with a connection pool of its own (two processes of a
// cluster): batch claims (FOR UPDATE SKIP LOCKED) and batch outcomes, with new events handed
// straight to one of them (handoff.ts) while both drain a backlog. No delivery is ever sent by
// both at once, none is lost, none is sent twice. Runs when HEARTH_TEST_DATABASE_URL is set.
import { describe, expect, it, onTestFinished } from 'vitest';
import { pino } from 'pino';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock } from '../../../src/ports/clock.js';
import { emitEvent } from '../../../src/domain/event/emit.js';
import { createEventPipeline } from '../../../src/domain/event/pipeline.js';
import { sealerOf } from '../../helpers/credentials.js';
import { toolParts } from '../../../src/roles/deps.js';
import { IdSource } from '../../../src/domain/crypto/ids.js';
import { RandomSource } from '../../../src/domain/crypto/random.js';
import type { EventPipeline } from '../../../src/ports/pipeline.js';
import { eventWebhookBody } from '../../../src/domain/webhook/payload.js';
import { generateWebhookKey } from '../../../src/worker/webhook/sender/signature.js';
import { createWorker, type Worker } from '../../../src/worker/index.js';
import type { Store } from '../../../src/ports/store.js';
import { freshSchemaName, makePostgresStore, testDatabaseUrl } from '../../helpers/db.js';
import { startReceiver, waitFor } from './receiver.js';
import { startThread } from '../../../src/adapters/thread-port.js';

const sealer = sealerOf('two-workers-test-secret-0123456789abcdef');
const ids = new IdSource(new RandomSource());
const BACKLOG = 300;
const EVENTS = 200;

async function delivered(w: Worker): Promise<number> {
  const m = await w.metrics.deliveries.get();
  return m.values.filter((v) => v.labels.outcome === 'success').reduce((a, v) => a + v.value, 0);
}

describe.skipIf(!testDatabaseUrl)('two workers on one PostgreSQL queue', () => {
  it('claim and complete in batches without ever sharing a delivery', { timeout: 60_000 }, async () => {
    const url = testDatabaseUrl!;
    const schema = freshSchemaName();
    const a = await makePostgresStore(url, schema);
    const storeB = await createSqlStore({ url, schema }).catch(async (e) => {
      await a.cleanup();
      throw e;
    });
    const workers: Worker[] = [];
    // in this order: the workers, then B's pool, then A's store and the schema
    onTestFinished(async () => {
      for (const w of workers) await w.close();
      await storeB.close();
      await a.cleanup();
    });

    const rx = await startReceiver();
    const key = generateWebhookKey();
    rx.trust(key);
    // every delivery is answered after a short while; one arriving while the same id is still
    // being answered would be a delivery shared by the two workers
    const open = new Set<string>();
    const times = new Map<string, number>();
    let overlapping = 0;
    rx.reply((r, res) => {
      const id = String(r.headers['x-service-delivery']);
      if (open.has(id)) overlapping++;
      open.add(id);
      times.set(id, (times.get(id) ?? 0) + 1);
      setTimeout(() => {
        open.delete(id);
        res.end('ok');
      }, Math.random() * 4);
    });

    const now = new Date().toISOString();
    await a.store.modules.create({
      projectId: 1,
      id: 'hooks',
      moduleType: 'webhooks',
      description: null,
      eventWebhook: { url: rx.url, subscriptions: ['*'], headers: null, body: null, keySealed: sealer.seal(key) },
      commandWebhook: null,
      eventDisabled: null,
      commandDisabled: null,
      creationTime: now,
      modificationTime: now,
    });

    const bus = createLocalBus();
    // one pipeline per node, as main.ts builds it: A's events are handed to worker A only
    const pipelineA = createEventPipeline({ store: a.store });
    const worker = (store: Store, pipeline: EventPipeline, id: string) =>
      createWorker({
        threads: startThread,
        store,
        pipeline,
        bus: createLocalBus(),
        clock: systemClock,
        sealer,
        logger: pino({ level: 'silent' }),
        webhooks: { allowPrivateTargets: true, timeoutMs: 5000, retryScheduleSeconds: [0.1], pollMs: 50, concurrency: 8 },
        workerId: id,
        closeGraceMs: 200,
      });
    const wA = worker(a.store, pipelineA, 'worker-a');
    const wB = worker(storeB, createEventPipeline({ store: storeB }), 'worker-b');
    workers.push(wA, wB);
    await wA.start();
    await wB.start();

    // a backlog both drain, written as another node would (pending, for any worker)...
    const body = (n: number) => JSON.stringify(eventWebhookBody({ eventType: 'tick', eventData: { n }, timestamp: now, homeId: 1 }));
    await storeB.deliveries.insertMany(
      Array.from({ length: BACKLOG }, (_, n) => ({
        id: `backlog-${String(n).padStart(4, '0')}`,
        projectId: 1,
        moduleId: 'hooks',
        kind: 'event' as const,
        eventId: null,
        eventType: 'tick',
        payload: body(n),
        creationTime: now,
      })),
    );
    // ...while events keep arriving on A's node, handed to worker A when it has room
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        emitEvent(
          { ...toolParts(), ids, pipeline: pipelineA, bus, clock: systemClock },
          { projectId: 1, event: { eventType: 'tick', eventData: { n: BACKLOG + i }, timestamp: now, homeId: 1 } },
        ),
      ),
    );

    await waitFor(() => times.size === BACKLOG + EVENTS, 30_000, 'every delivery');
    await waitFor(async () => (await a.store.deliveries.stats()).pending + (await a.store.deliveries.stats()).delivering === 0, 10_000, 'every outcome');
    const list = await a.store.deliveries.list({ projectId: 1, moduleId: 'hooks' }, { skip: 0, limit: 1000 });
    expect(list.total).toBe(BACKLOG + EVENTS);
    expect(list.items.every((d) => d.status === 'success' && d.attempts.length === 1 && d.claimedBy === null)).toBe(true);
    expect(overlapping).toBe(0);
    expect([...times.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(rx.received.map((r) => r.body.eventData.n)).size).toBe(BACKLOG + EVENTS);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    // both took part
    const [byA, byB] = [await delivered(wA), await delivered(wB)];
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    expect(byA + byB).toBe(BACKLOG + EVENTS);
  });
});
