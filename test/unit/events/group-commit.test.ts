// GroupCommit (src/domain/event/group-commit.ts) over a real SQLite table with a primary key:
// items of one turn share one transaction; when that transaction fails, each item is retried in
// a transaction of its own, so one bad item fails alone and the others are committed. Right
// after a commit (a storm), the next one gathers for about as long as the last one took. With
// `durable` (the WAL synced off the event loop), nobody is answered before the batch is durable.
// Senders that wait for their answer (`senderWaits`: REST events) are waited for after their batch
// is answered, so that they share the next commit instead of splitting into alternating batches.
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { GroupCommit } from '../../../src/domain/event/group-commit.js';

function table() {
  const db = new BetterSqlite3(':memory:');
  onTestFinished(() => void db.close());
  db.exec('create table events (id text primary key)');
  const insert = db.prepare('insert into events (id) values (?)');
  /** every transaction tried, with its items, and whether it committed */
  const commits: { items: string[]; ok: boolean }[] = [];
  const write = db.transaction((items: string[]) => {
    for (const id of items) insert.run(id);
  });
  const commit = async (items: string[]) => {
    try {
      write(items);
      commits.push({ items, ok: true });
    } catch (err) {
      commits.push({ items, ok: false });
      throw err;
    }
  };
  const stored = () => (db.prepare('select id from events order by id').all() as { id: string }[]).map((r) => r.id);
  return { db, commit, commits, stored };
}

/** how each promise settled, in order */
const outcomes = (ps: Promise<void>[]) =>
  Promise.all(
    ps.map((p) =>
      p.then(
        () => 'ok',
        (e: Error) => e.message,
      ),
    ),
  );

describe('GroupCommit', () => {
  it('commits the items of one turn in one transaction, and resolves each', async () => {
    const t = table();
    const gc = new GroupCommit<string>(t.commit);
    expect(await outcomes(['a', 'b', 'c'].map((id) => gc.add(id)))).toEqual(['ok', 'ok', 'ok']);
    expect(t.commits).toEqual([{ items: ['a', 'b', 'c'], ok: true }]);
    expect(t.stored()).toEqual(['a', 'b', 'c']);
  });

  it('falls back to one transaction per item when the batch fails: only the bad item fails', async () => {
    const t = table();
    t.db.prepare('insert into events (id) values (?)').run('dup'); // what makes one item bad
    const gc = new GroupCommit<string>(t.commit);
    const results = await outcomes(['a', 'dup', 'b'].map((id) => gc.add(id)));
    expect(results[0]).toBe('ok');
    expect(results[1]).toMatch(/UNIQUE constraint failed/);
    expect(results[2]).toBe('ok');
    // the batch was rolled back as a whole, then each item was tried alone
    expect(t.commits).toEqual([
      { items: ['a', 'dup', 'b'], ok: false },
      { items: ['a'], ok: true },
      { items: ['dup'], ok: false },
      { items: ['b'], ok: true },
    ]);
    expect(t.stored()).toEqual(['a', 'b', 'dup']);
    // counts() (/metrics): the transactions that committed and the items they held
    expect(gc.counts()).toEqual({ commits: 2, items: 2 });
    expect(await outcomes(['c', 'd', 'e'].map((id) => gc.add(id)))).toEqual(['ok', 'ok', 'ok']);
    expect(gc.counts()).toEqual({ commits: 3, items: 5 });
  });

  it('rejects a lone item whose transaction fails, without trying it twice', async () => {
    const t = table();
    t.db.prepare('insert into events (id) values (?)').run('dup');
    const gc = new GroupCommit<string>(t.commit);
    expect(await outcomes([gc.add('dup')])).toEqual([expect.stringMatching(/UNIQUE constraint failed/)]);
    expect(t.commits).toEqual([{ items: ['dup'], ok: false }]);
  });

  it('puts items that arrive during a commit into the next one, together', async () => {
    const t = table();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first = true;
    const gc = new GroupCommit<string>(async (items) => {
      if (first) {
        first = false;
        await gate; // the first commit is under way until the test lets it end
      }
      await t.commit(items);
    });
    const one = gc.add('a');
    // the first commit has started once the turn that added 'a' is over
    await new Promise((r) => setImmediate(r));
    const later = ['b', 'c'].map((id) => gc.add(id));
    release();
    expect(await outcomes([one, ...later])).toEqual(['ok', 'ok', 'ok']);
    expect(t.commits).toEqual([
      { items: ['a'], ok: true },
      { items: ['b', 'c'], ok: true },
    ]);
  });

  it('during a storm, items of several turns right after a commit share the next one', async () => {
    const t = table();
    let slow = true;
    const gc = new GroupCommit<string>(
      async (items) => {
        // the first commit takes a while: the next gathers about as long (at most maxGatherMs)
        if (slow) ((slow = false), await new Promise((r) => setTimeout(r, 300)));
        await t.commit(items);
      },
      { maxGatherMs: 5_000 },
    );
    await gc.add('a');
    const b = gc.add('b');
    // a later turn of the event loop: without the window, 'b' would have committed alone by now
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const c = gc.add('c');
    expect(await outcomes([b, c])).toEqual(['ok', 'ok']);
    expect(t.commits).toEqual([
      { items: ['a'], ok: true },
      { items: ['b', 'c'], ok: true },
    ]);
  });

  it('during a storm, only items the owner marks gather: the others commit at once', async () => {
    const t = table();
    const gc = new GroupCommit<string>(
      async (items) => {
        // a commit holding an 's' item takes a while: a marked item after it gathers about as long
        if (items.some((x) => x.startsWith('s'))) await new Promise((r) => setTimeout(r, 300));
        await t.commit(items);
      },
      { maxGatherMs: 5_000, gathers: (item) => item.startsWith('p') },
    );
    await gc.add('s1');
    // 'e' is not marked: it commits in its own turn, so 'e2', two turns later, commits alone too
    const e = gc.add('e');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const e2 = gc.add('e2');
    expect(await outcomes([e, e2])).toEqual(['ok', 'ok']);
    // positive control: marked items right after a slow commit wait, and share one commit
    await gc.add('s2');
    const p1 = gc.add('p1');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const p2 = gc.add('p2');
    expect(await outcomes([p1, p2])).toEqual(['ok', 'ok']);
    expect(t.commits.map((x) => x.items)).toEqual([['s1'], ['e'], ['e2'], ['s2'], ['p1', 'p2']]);
  });

  it('with `durable`, answers a batch only once it is durable; what arrives while it syncs is the next batch', async () => {
    const t = table();
    const syncs: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gc = new GroupCommit<string>(t.commit, {
      durable: async () => {
        syncs.push(t.stored());
        if (syncs.length === 1) await gate; // the first sync lasts until the test lets it end
      },
    });
    let answered = false;
    const a = gc.add('a').then(() => void (answered = true));
    await expect.poll(() => syncs.length).toBe(1);
    // committed, not answered: the event loop is free meanwhile, and what it reads waits together
    expect(t.stored()).toEqual(['a']);
    const later = ['b', 'c'].map((id) => gc.add(id));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    release();
    await a;
    expect(await outcomes(later)).toEqual(['ok', 'ok']);
    expect(t.commits.map((x) => x.items)).toEqual([['a'], ['b', 'c']]);
    expect(syncs).toEqual([['a'], ['a', 'b', 'c']]);
  });

  it('rejects every committed item of a batch whose `durable` fails, without committing them again', async () => {
    const t = table();
    t.db.prepare('insert into events (id) values (?)').run('dup');
    let fail = true;
    const gc = new GroupCommit<string>(t.commit, {
      durable: async () => {
        if (fail) throw new Error('EIO: fsync failed');
      },
    });
    // the bad item fails on its own (its commit), the two committed ones with the sync
    expect(await outcomes(['a', 'dup', 'b'].map((id) => gc.add(id)))).toEqual([
      'EIO: fsync failed',
      expect.stringMatching(/UNIQUE constraint failed/),
      'EIO: fsync failed',
    ]);
    expect(t.commits.map((x) => x.items)).toEqual([['a', 'dup', 'b'], ['a'], ['dup'], ['b']]);
    // positive control: once the sync succeeds, the next batch is answered
    fail = false;
    expect(await outcomes([gc.add('c')])).toEqual(['ok']);
  });

  it('never gathers with maxGatherMs 0: each turn commits at once', async () => {
    const t = table();
    const gc = new GroupCommit<string>(t.commit, { maxGatherMs: 0 });
    await gc.add('a');
    const b = gc.add('b');
    // positive control for the turn boundary: 'b' is committed before 'c' is added
    await b;
    const c = gc.add('c');
    expect(await outcomes([c])).toEqual(['ok']);
    expect(t.commits.map((x) => x.items)).toEqual([['a'], ['b'], ['c']]);
  });
  /** the gathering window's timer and the clock it reads are the test's: a window ends only when the test says */
  function windowsByHand() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    onTestFinished(() => void vi.useRealTimers());
  }
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  it('waits for senders that wait for their answer to come back after their batch, and commits as soon as all are back', async () => {
    windowsByHand();
    const t = table();
    const gc = new GroupCommit<string>(t.commit, { gathers: () => false, senderWaits: (x) => x.startsWith('w') });
    expect(await outcomes(['wa', 'wb'].map((id) => gc.add(id)))).toEqual(['ok', 'ok']);
    // the first sender back waits for the second (its window never ends here): turns pass without a commit
    const wa2 = gc.add('wa2');
    await turns(3);
    expect(t.commits).toHaveLength(1);
    // the second back: both commit at once, without the window's end
    const wb2 = gc.add('wb2');
    expect(await outcomes([wa2, wb2])).toEqual(['ok', 'ok']);
    expect(t.commits.map((x) => x.items)).toEqual([
      ['wa', 'wb'],
      ['wa2', 'wb2'],
    ]);

    // a sender alone is never waited for, nor are senders that do not wait for their answer
    const alone = table();
    const gc2 = new GroupCommit<string>(alone.commit, { gathers: () => false, senderWaits: (x) => x.startsWith('w') });
    await gc2.add('w1');
    expect(await outcomes([gc2.add('w2')])).toEqual(['ok']);
    expect(await outcomes(['e1', 'e2'].map((id) => gc2.add(id)))).toEqual(['ok', 'ok']);
    expect(await outcomes([gc2.add('e3')])).toEqual(['ok']);
    expect(alone.commits.map((x) => x.items)).toEqual([['w1'], ['w2'], ['e1', 'e2'], ['e3']]);
  });

  it('commits what came back once the window ends, and does not wait after a window that ran out', async () => {
    windowsByHand();
    const t = table();
    const gc = new GroupCommit<string>(t.commit, { gathers: () => false, senderWaits: () => true });
    expect(await outcomes(['a', 'b', 'c'].map((id) => gc.add(id)))).toEqual(['ok', 'ok', 'ok']);
    // two of the three come back: they wait (positive control), until the window ends
    const back = ['d', 'e'].map((id) => gc.add(id));
    await turns(3);
    expect(t.commits).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(await outcomes(back)).toEqual(['ok', 'ok']);
    // the wait ran out: after d and e, nobody is waited for (the window would never end here)
    expect(await outcomes([gc.add('f')])).toEqual(['ok']);
    expect(t.commits.map((x) => x.items)).toEqual([['a', 'b', 'c'], ['d', 'e'], ['f']]);
  });

  it('skips the waits for longer each time one runs out, and for one batch again once the senders were all back', async () => {
    windowsByHand();
    const t = table();
    const gc = new GroupCommit<string>(t.commit, { gathers: () => false, senderWaits: () => true });
    /** adds the item; whether it is still uncommitted a few turns later (waiting for others) */
    const add = async (id: string) => {
      const p = gc.add(id);
      await turns(3);
      return { p, waiting: t.commits.every((x) => !x.items.includes(id)) };
    };
    /** a wait that runs out */
    const runsOut = async (id: string) => {
      const x = await add(id);
      expect(x.waiting).toBe(true);
      vi.advanceTimersByTime(1_000);
      await x.p;
    };
    const pair = (a: string, b: string) => Promise.all([gc.add(a), gc.add(b)]);
    await pair('a', 'b');
    // the first wait that runs out: the batch it lets go is not waited for, the one after is
    await runsOut('c');
    await pair('d', 'e');
    // the second: neither the batch it lets go nor the one after is waited for
    await runsOut('f');
    await pair('g', 'h');
    const i = await add('i');
    expect(i.waiting).toBe(false);
    await i.p;
    // both back within the window: after the next wait that runs out, one batch is skipped again
    await pair('j', 'k');
    const l = await add('l');
    expect(l.waiting).toBe(true);
    await Promise.all([l.p, gc.add('m')]);
    await runsOut('n');
    await pair('o', 'p');
    await runsOut('q');
    expect(t.commits.map((x) => x.items)).toEqual([['a', 'b'], ['c'], ['d', 'e'], ['f'], ['g', 'h'], ['i'], ['j', 'k'], ['l', 'm'], ['n'], ['o', 'p'], ['q']]);
  });
});
