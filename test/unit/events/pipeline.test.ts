// Two Hearths in one process (as tests and benches run them) each build their own event pipeline
// (src/domain/event/pipeline.ts) and share nothing: one's events are not offered to the other's
// workers, and one's webhook target cache is read and dropped on its own. The WeakMaps keyed by
// the Store used to make this implicit; now each Deps carries its pipeline.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { emitEvent } from '../../../src/domain/event/emit.js';
import type { NewDelivery } from '../../../src/ports/queue.js';
import { EVENT_SIDE_TIME as T, eventSide } from '../../helpers/event-side.js';

/** one Hearth's event side: its own store, bus and pipeline, with project 1 and a module subscribed to everything */
async function hearth() {
  const { deps, payloads } = await eventSide();
  const store = deps.store;
  /** every batch of rows the pipeline offered a local worker (which takes none: they stay in the queue) */
  const offered: NewDelivery[][] = [];
  onTestFinished(deps.pipeline.attachClaimer({ reserve: (rows) => void offered.push(rows) }));
  const emit = (n: number) => emitEvent(deps, { projectId: 1, event: { eventType: 'tick', eventData: { n }, timestamp: T, homeId: 1 } });
  const deliveries = async () => (await payloads()).map((p) => JSON.parse(p).eventData.n);
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

describe('event pipeline durability', () => {
  it('answers an event, and hands its deliveries to a local worker, only once the store has synced its commit', async () => {
    const a = await hearth();
    const handedOver: number[] = [];
    onTestFinished(
      a.pipeline.attachClaimer({
        reserve: (rows) => ({
          claim: { workerId: 'w', leaseUntil: '2030-01-01T00:05:00.000Z' },
          taken: rows,
          accept: () => void handedOver.push(...rows.map((d) => JSON.parse(d.payload).eventData.n)),
          cancel: () => {},
        }),
      }),
    );
    // the store's real sync (docs/operations.md#durability), held until the test lets it go
    const store = a.store;
    const sync = store.synced.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let syncs = 0;
    store.synced = async () => {
      syncs++;
      await gate;
      await sync();
    };
    let answered = false;
    const emitted = a.emit(1).then(() => void (answered = true));
    await expect.poll(() => syncs).toBe(1);
    // committed (another reader sees the row), neither answered nor handed over
    expect((await store.events.list({ projectId: 1 }, { skip: 0, limit: 10 })).items.map((e) => e.event.eventData)).toEqual([{ n: 1 }]);
    expect([answered, handedOver]).toEqual([false, []]);
    release();
    await emitted;
    expect(handedOver).toEqual([1]);
  });
});
