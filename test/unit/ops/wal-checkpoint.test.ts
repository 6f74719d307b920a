// SQLite's checkpoints on a thread of their own (src/adapters/sql/wal-checkpoint.ts), through the
// store as the node opens it: real database files, the real thread, the real hold on Kysely's
// connection. The WAL starts over without the main connection ever checkpointing (it would only
// at wal_autocheckpoint, 4,000 frames: the WAL's file would then be at least that long), every row
// written is there, and a thread that dies is replaced.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { walCheckpointer, type WalCheckpointer } from '../../../src/adapters/sql/wal-checkpoint.js';

/** a WAL frame: a 24-byte header and a page (SQLite's default 4,096 bytes) */
const FRAME = 24 + 4096;
/** the main connection's own checkpoint: at this many frames (connect.ts) */
const AUTOCHECKPOINT = 4000;

let dir: string;
let store: SqlStore | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-wal-checkpoint-'));
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<{ file: string; s: SqlStore; checkpoints: WalCheckpointer; insert: (rows: number) => Promise<void> }> {
  const file = join(dir, 'hearth.db');
  const s = (store = await createSqlStore({ url: file, readCache: false }));
  const db = s.sql.sqlite!;
  db.exec('create table rows_written (id integer primary key, b blob not null)');
  const insert = db.prepare('insert into rows_written (b) values (randomblob(3800))');
  // as the event pipeline commits: into the WAL, then its sync off the event loop
  const write = async (rows: number) => {
    await s.transaction(
      async () => {
        for (let i = 0; i < rows; i++) insert.run();
      },
      { syncLater: true },
    );
    await s.synced();
  };
  return { file, s, checkpoints: s.sql.checkpoints!, insert: write };
}

/** resolves once the thread has run `n` more passes (held or not) than it had */
async function passes(c: WalCheckpointer, n: number): Promise<void> {
  const target = c.figures().passes + n;
  while (c.figures().passes < target) await new Promise((r) => setTimeout(r, 10));
}

describe('checkpoints on their own thread', () => {
  it('start the WAL over by themselves while the node writes, and every row is kept', { timeout: 60_000 }, async () => {
    const { file, s, checkpoints, insert } = await open();
    let written = 0;
    let longestWal = 0;
    let restarts = 0;
    let passesSeen = 0;
    let last = 0;
    // the node commits all the while (8 pages, then 2 ms), so most passes end after the next
    // commit: the WAL starts over through the held ones. At most about 400 frames a pass's
    // interval: the WAL reaches the restart size (2,000 frames), never the main connection's 4,000
    while (restarts < 3 || checkpoints.figures().holds < 2) {
      await insert(8);
      written += 8;
      await sleep(2);
      const f = checkpoints.figures();
      if (f.passes === passesSeen) continue;
      passesSeen = f.passes;
      // the WAL started over: a pass finds fewer frames than the one before
      if (f.walFrames < last) restarts++;
      last = f.walFrames;
      longestWal = Math.max(longestWal, statSync(`${file}-wal`).size);
    }
    const f = checkpoints.figures();
    expect(f.failures).toBe(0);
    expect(f.heldMs).toBeGreaterThan(0);
    // the main connection never checkpointed: its WAL never held 4,000 frames
    expect(longestWal).toBeLessThan(AUTOCHECKPOINT * FRAME);
    expect(longestWal).toBeGreaterThan(2000 * FRAME);
    const n = (s.sql.sqlite!.prepare('select count(*) as n from rows_written').get() as { n: number }).n;
    expect(n).toBe(written);
    await s.close();
    store = undefined;
    // the main connection closed last: it checkpointed the rest and removed the WAL
    expect(existsSync(`${file}-wal`)).toBe(false);
    const db = new BetterSqlite3(file, { readonly: true });
    try {
      expect((db.prepare('select count(*) as n from rows_written').get() as { n: number }).n).toBe(written);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('survive the thread dying: the next pass starts a new thread', { timeout: 60_000 }, async () => {
    const { s, checkpoints, insert } = await open();
    await insert(8);
    await passes(checkpoints, 1);
    const first = checkpoints.thread!;
    expect(first).toBeDefined();
    await first.terminate();
    // the node goes on writing; the next passes run on a new thread, and hold the connection in turn
    let written = 8;
    while (checkpoints.figures().holds < 1) {
      await insert(8);
      written += 8;
      await sleep(2);
    }
    expect(checkpoints.thread).toBeDefined();
    expect(checkpoints.thread).not.toBe(first);
    expect((s.sql.sqlite!.prepare('select count(*) as n from rows_written').get() as { n: number }).n).toBe(written);
  });

  it('wait longer between passes while the node writes little', { timeout: 60_000 }, async () => {
    const { checkpoints, insert } = await open();
    // a row now and then: each pass finds a few new frames, and the next one waits twice as long
    const times: number[] = [];
    let seen = checkpoints.figures().passes;
    while (times.length < 5) {
      await insert(1);
      await sleep(20);
      const f = checkpoints.figures();
      if (f.passes === seen) continue;
      seen = f.passes;
      times.push(performance.now());
    }
    // waits of 100, 200, 400 and 800 ms between those five passes: 1.5 s, less at most the time
    // this loop took to see the first one (a timer never fires before its time); passes every
    // 100 ms would have taken about 0.5 s
    expect(times[4] - times[0]).toBeGreaterThanOrEqual(1400);
    expect(checkpoints.figures().holds).toBe(0);
  });

  it('report a thread that cannot open the database, and go on trying after longer waits', { timeout: 60_000 }, async () => {
    const errors: Error[] = [];
    const at: number[] = [];
    let writes = 0;
    const c = walCheckpointer({
      file: join(dir, 'no-such-dir', 'hearth.db'),
      hold: (fn) => fn(),
      // the node writes all the while
      written: () => ++writes,
      onError: (err) => {
        errors.push(err);
        at.push(performance.now());
      },
      intervalMs: 5,
    });
    try {
      while (c.figures().failures < 3) await sleep(5);
      expect(errors.length).toBe(c.figures().failures);
      expect(errors[0].message).toMatch(/the checkpoint thread stopped: .*(unable to open|cannot open)/i);
      expect(c.figures().passes).toBe(0);
      // the waits double after each failure (10, 20 ms...): a timer never fires before its time
      expect(at[2] - at[1]).toBeGreaterThanOrEqual(19);
    } finally {
      await c.close();
    }
  });

  it('are not run by a process that starts no threads (the admin CLI): SQLite checkpoints in its commits', async () => {
    const s = (store = await createSqlStore({ url: join(dir, 'hearth.db'), readCache: false, threads: false }));
    expect(s.sql.checkpoints).toBeUndefined();
    expect(s.sql.accessLogWriter).toBeUndefined();
    expect(s.sql.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT);
  });

  it('are not run for an in-memory database (it has no WAL)', async () => {
    const s = (store = await createSqlStore({ url: ':memory:', readCache: false }));
    expect(s.sql.checkpoints).toBeUndefined();
  });
});
