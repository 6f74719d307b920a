// Two Hearths in one process (as tests and benches run them) each build their own event pipeline
// (src/domain/event/pipeline.ts) and share nothing: one's events are not offered to the other's
// workers, and one's webhook target cache is read and dropped on its own. The WeakMaps keyed by
// the Store used to make this implicit; now each Deps carries its pipeline.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { makeSqliteStore } from '../../helpers/db.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock } from '../../../src/ports/clock.js';
import { emitEvent } from '../../../src/domain/event/emit.js';
import { domainParts, toolParts } from '../../../src/roles/deps.js';
import type { NewDelivery } from '../../../src/ports/queue.js';

const T = '2030-01-01T00:00:00.000Z';

/** one Hearth's event side: its own store, bus and pipeline, with project 1 and a module subscribed to everything */
async function hearth() {
  const { store, cleanup } = await makeSqliteStore();
  const bus = createLocalBus();
  onTestFinished(async () => {
    await bus.close();
    await cleanup();
  });
  await store.projects.create({ name: 'p', creationTime: T });
  await store.modules.create({
    projectId: 1,
    id: 'hooks',
    moduleType: 'webhooks',
    description: null,
    eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: ['*'], headers: null, body: null, keySealed: 'k' },
    commandWebhook: null,
    eventDisabled: null,
    commandDisabled: null,
    creationTime: T,
    modificationTime: T,
  });
  // the server's own parts (src/roles/deps.ts): this store's pipeline, ids, and a tool's stand-ins
  const deps = { ...toolParts(), ...domainParts({ store, secret: 'unit-secret-unit-secret' }), store, bus, clock: systemClock };
  /** every batch of rows the pipeline offered a local worker (which takes none: they stay in the queue) */
  const offered: NewDelivery[][] = [];
  onTestFinished(deps.pipeline.attachClaimer({ reserve: (rows) => void offered.push(rows) }));
  const emit = (n: number) => emitEvent(deps, { projectId: 1, event: { eventType: 'tick', eventData: { n }, timestamp: T, homeId: 1 } });
  const deliveries = async () =>
    (await store.deliveries.list({ projectId: 1, moduleId: 'hooks' }, { skip: 0, limit: 100 })).items.map((d) => JSON.parse(d.payload).eventData.n);
  return { ...deps, offered, emit, deliveries, reads: vi.spyOn(store.modules, 'list') };
}

describe('event pipelines of two Hearths in one process', () => {
  it('commit each event to its own store and offer its deliveries to its own workers only', async () => {
    const a = await hearth();
    const b = await hearth();
    await a.emit(1);
    await b.emit(2);
    await b.emit(3);
    expect(await a.deliveries()).toEqual([1]);
    expect((await b.deliveries()).sort()).toEqual([2, 3]);
    expect(a.offered.flat().map((d) => JSON.parse(d.payload).eventData.n)).toEqual([1]);
    expect(b.offered.flat().map((d) => JSON.parse(d.payload).eventData.n)).toEqual([2, 3]);
  });

  it('keep their own webhook target caches: a change dropped in one is still cached in the other', async () => {
    const a = await hearth();
    const b = await hearth();
    await a.emit(1);
    await b.emit(1);
    expect([a.reads.mock.calls.length, b.reads.mock.calls.length]).toEqual([1, 1]);
    a.pipeline.invalidateTargets(1);
    await a.emit(2);
    await b.emit(2);
    expect([a.reads.mock.calls.length, b.reads.mock.calls.length]).toEqual([2, 1]);
  });

  it('stop offering rows to a worker once it detaches', async () => {
    const a = await hearth();
    const taken: NewDelivery[][] = [];
    const detach = a.pipeline.attachClaimer({ reserve: (rows) => void taken.push(rows) });
    await a.emit(1);
    detach();
    await a.emit(2);
    expect(taken.flat().map((d) => JSON.parse(d.payload).eventData.n)).toEqual([1]);
    expect(a.offered.flat().map((d) => JSON.parse(d.payload).eventData.n)).toEqual([1, 2]);
  });
});
