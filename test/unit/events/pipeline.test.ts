// Two Hearths in one process (as tests and benches run them) each build their own event pipeline
// (src/domain/event/pipeline.ts) and share nothing: one's events are not offered to the other's
// workers, and one's webhook target cache is read and dropped on its own. The WeakMaps keyed by
// the Store used to make this implicit; now each Deps carries its pipeline. REST events (sendEvent)
// mark their senders as waiting for the answer, so the commit after theirs waits for them to come back.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { emitEvent } from '../../../src/domain/event/emit.js';
import { sendEvent, sendEventOf } from '../../../src/domain/event/send.js';
import type { Caller } from '../../../src/domain/caller.js';
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

describe('event pipeline and REST senders', () => {
  it('waits for REST senders answered together to come back, so that their next events share a commit; broker events are not waited for', async () => {
    // the gathering window's timer and the clock it reads are the test's: a window ends only when the test says
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    onTestFinished(() => void vi.useRealTimers());
    const { deps: side } = await eventSide();
    const deps = {
      ...side,
      limits: { eventDataBytes: 65536, kvValueBytes: 65536, kvKeysPerStore: 1000, kvStoreBytes: 262144, listDefault: 1000, listMax: 10000 },
    };
    const store = deps.store;
    const home = await store.homes.create({ projectId: 1, name: 'h', creationTime: T });
    const device = await store.devices.create({
      projectId: 1,
      deviceClass: 'sensor',
      homeId: home.id,
      name: 'd',
      description: null,
      tag: null,
      apiKeyHash: 'h',
      apiKeySealed: 's',
      claimCodeHash: null,
      claimCodeSealed: null,
      claimExpirationTime: null,
      claimTime: null,
      creationTime: T,
      bundleInstalled: null,
      bundleInstallTime: null,
      channel: null,
    });
    const caller: Caller = { type: 'device', projectId: 1, deviceId: device.id, deviceClass: 'sensor', ip: undefined };
    const body = (n: number) => ({ eventType: 'tick', eventData: { n } });
    const rest = (n: number) => sendEvent({ deps: deps as never, caller, input: { deviceId: device.id, body: body(n) } });
    const broker = (n: number) => sendEventOf({ deps: deps as never, caller, input: { device, body: body(n) } });
    const commits = vi.spyOn(store, 'transaction');
    const turns = async (k: number) => {
      for (let i = 0; i < k; i++) await new Promise((r) => setImmediate(r));
    };
    await Promise.all([rest(1), rest(2)]);
    expect(commits).toHaveBeenCalledTimes(1);
    // the first back waits for the second (the window never ends here)
    const third = rest(3);
    await turns(3);
    expect(commits).toHaveBeenCalledTimes(1);
    await Promise.all([third, rest(4)]);
    expect(commits).toHaveBeenCalledTimes(2);
    // broker events answered together are not waited for: the next commits in its own turn
    await Promise.all([broker(5), broker(6)]);
    await broker(7);
    expect(commits).toHaveBeenCalledTimes(4);
    const stored = await store.events.list({ projectId: 1 }, { skip: 0, limit: 10 });
    expect(stored.items.map((e) => e.event.eventData.n).sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('emitEvent answers with its promise', () => {
  it('an event that fails before its commit rejects the promise instead of throwing at the caller (as when it was an async function)', async () => {
    const { deps } = await eventSide();
    // positive control, and the project's webhook targets cached: the next event takes the path without a turn of its own
    await emitEvent(deps, { projectId: 1, event: { eventType: 'tick', eventData: {}, timestamp: T, homeId: 1 } });
    expect((await deps.store.events.list({ projectId: 1, eventType: 'tick' }, { skip: 0, limit: 5 })).total).toBe(1);
    // an event without eventData: reading its time-series points throws a TypeError before the commit
    const broken = { eventType: 'tick', timestamp: T, homeId: 1 } as never;
    let emitted: Promise<string> | undefined;
    expect(() => (emitted = emitEvent(deps, { projectId: 1, event: broken }))).not.toThrow();
    await expect(emitted).rejects.toThrow(TypeError);
  });
});

describe('event pipeline commits, all or nothing', () => {
  // the outbox's transaction runs its repositories' steps without savepoints (Store.transaction's
  // `whole`): that holds only while a failure anywhere in it rolls all of it back
  it('rolls a batch back whole when one of its deliveries is refused, then commits the others once each', async () => {
    const a = await hearth();
    const sqlite = (a.store as unknown as { sql: { sqlite: import('better-sqlite3').Database } }).sql.sqlite;
    // the store's own refusal, after the batch's events were inserted: a real SQLite trigger
    sqlite.exec(`create trigger refuse_13 before insert on deliveries when json_extract(new.payload, '$.eventData.n') = 13
      begin select raise(abort, 'refused by the test'); end`);
    const before = a.pipeline.commitCounts();
    const settled = await Promise.allSettled([a.emit(1), a.emit(13), a.emit(3)]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/refused by the test/);
    const events = (await a.store.events.list({ projectId: 1 }, { skip: 0, limit: 10 })).items.map((e) => (e.event.eventData as { n: number }).n);
    expect(events.sort()).toEqual([1, 3]);
    expect((await a.deliveries()).sort()).toEqual([1, 3]);
    // the three shared a transaction that failed, then each went alone: two of those committed
    const after = a.pipeline.commitCounts();
    expect([after.commits - before.commits, after.items - before.items]).toEqual([2, 2]);
  });
});
