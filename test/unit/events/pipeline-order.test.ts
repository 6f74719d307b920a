// The event pipeline (src/domain/event/pipeline.ts) over a real SQLite store whose WAL syncs the
// test holds: while one commit's sync is slow, the next commit is made beside it (group-commit.ts),
// and its deliveries reach the worker of this process only after the earlier commit's, even when
// its own sync ends first, so a device's deliveries keep the order of its events. When the
// earlier sync fails, its deliveries are given back and the later ones still go out.
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeSqliteStore } from '../../helpers/db.js';
import { createEventPipeline } from '../../../src/domain/event/pipeline.js';
import type { NewDelivery } from '../../../src/ports/queue.js';
import type { LocalClaimer, OutboxItem } from '../../../src/ports/pipeline.js';

const T = '2030-01-01T00:00:00.000Z';

function item(n: number): OutboxItem {
  const delivery: NewDelivery = {
    id: `d${n}`,
    projectId: 1,
    moduleId: 'm',
    kind: 'event',
    eventId: `e${n}`,
    eventType: 'tick',
    payload: JSON.stringify({ n }),
    creationTime: T,
  };
  return { row: { id: `e${n}`, projectId: 1, event: { eventType: 'tick', eventData: { n }, timestamp: T } }, deliveries: [delivery] };
}

/** a pipeline whose store's every sync is real, then held until the test ends it */
async function held() {
  const { store, cleanup } = await makeSqliteStore();
  onTestFinished(cleanup);
  const syncs: { end: (err?: Error) => void }[] = [];
  const pipeline = createEventPipeline({
    store: {
      ...store,
      synced: async () => {
        await store.synced();
        await new Promise<void>((resolve, reject) => syncs.push({ end: (err) => (err ? reject(err) : resolve()) }));
      },
    },
  });
  // the worker's side of the hand-off, as reservations.ts keeps it: what it was handed, in order
  const handed: string[] = [];
  const given: string[] = [];
  const claimer: LocalClaimer = {
    reserve: (rows) => ({
      claim: { workerId: 'w', leaseUntil: T },
      taken: rows,
      accept: () => handed.push(...rows.map((d) => d.id)),
      cancel: () => given.push(...rows.map((d) => d.id)),
    }),
  };
  pipeline.attachClaimer(claimer);
  return { store, pipeline, syncs, handed, given };
}

describe('event pipeline: overlapping syncs', () => {
  it('hands a later commit’s deliveries over after the earlier commit’s, whichever sync ends first', async () => {
    const p = await held();
    const answered: number[] = [];
    const first = p.pipeline.commit(item(1)).then(() => void answered.push(1));
    await expect.poll(() => p.syncs.length).toBe(1);
    // the first sync is held: slow by any measure, so the next commit is made beside it
    const second = p.pipeline.commit(item(2)).then(() => void answered.push(2));
    await expect.poll(() => p.syncs.length).toBe(2);
    // both are committed (leased to the worker) before either is durable
    expect((await p.store.deliveries.stats()).delivering).toBe(2);
    // the later sync ends first: nothing is handed over or answered yet
    p.syncs[1].end();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(p.handed).toEqual([]);
    expect(answered).toEqual([]);
    p.syncs[0].end();
    await Promise.all([first, second]);
    expect(p.handed).toEqual(['d1', 'd2']);
    expect(answered).toEqual([1, 2]);
  });

  it('gives back the deliveries of a commit whose sync fails, and hands over the later commit’s', async () => {
    const p = await held();
    const first = p.pipeline.commit(item(1));
    first.catch(() => {});
    await expect.poll(() => p.syncs.length).toBe(1);
    const second = p.pipeline.commit(item(2));
    await expect.poll(() => p.syncs.length).toBe(2);
    p.syncs[1].end();
    p.syncs[0].end(new Error('EIO: fsync failed'));
    await expect(first).rejects.toThrow('EIO');
    await second;
    expect(p.given).toEqual(['d1']);
    expect(p.handed).toEqual(['d2']);
  });
});
