// SQLite's checkpoints off the event loop (src/adapters/sql/checkpointer.ts, docs/operations.md#durability):
// a thread with its own connection copies the WAL into the database file; the main connection's
// own checkpoint at 4,000 pages stays as the bound when the thread cannot. Real database files.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { WAL_CHECKPOINT_PAGES } from '../../../src/adapters/sql/connect.js';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-checkpointer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function open(): Promise<SqlStore> {
  const store = await createSqlStore({ url: join(dir, 'hearth.db'), readCache: false });
  onTestFinished(() => store.close());
  store.sql.sqlite!.exec('create table if not exists scratch (id integer primary key, b blob not null)');
  return store;
}

/** frames in the WAL file (a 32-byte header, then frames of a 24-byte header and a page); it never shrinks while open */
function walPages(store: SqlStore): number {
  const db = store.sql.sqlite!;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  return Math.floor((statSync(`${db.name}-wal`).size - 32) / (pageSize + 24));
}

/** `commits` transactions of 50 rows of about a page each, as the event pipeline makes them, the loop turning between */
async function write(store: SqlStore, commits: number): Promise<number> {
  const db = store.sql.sqlite!;
  const insert = db.prepare('insert into scratch (b) values (randomblob(3800))');
  let most = 0;
  for (let c = 0; c < commits; c++) {
    await store.transaction(
      async () => {
        for (let i = 0; i < 50; i++) insert.run();
      },
      { syncLater: true },
    );
    await store.synced();
    most = Math.max(most, walPages(store));
    await new Promise((r) => setImmediate(r));
  }
  return most;
}

const rows = (store: SqlStore) => (store.sql.sqlite!.prepare('select count(*) as n from scratch').get() as { n: number }).n;

describe('SQLite checkpointer thread', () => {
  it('copies the WAL into the database off the event loop, and the next commit starts the WAL over', async () => {
    const store = await open();
    const checkpointer = store.sql.checkpointer!;
    await write(store, 10);
    // nothing writes meanwhile: the thread copies every frame
    const first = await checkpointer.checkpoint();
    expect(first).toMatchObject({ left: 0, busy: false });
    // the next commit starts the WAL over: the thread then finds only that commit's frames
    await write(store, 1);
    const second = await checkpointer.checkpoint();
    expect((second as { log: number }).log).toBeLessThan(100);
    expect(checkpointer.stats().failures).toBe(0);
    expect(checkpointer.stats().restarts).toBeGreaterThanOrEqual(1);
    expect(checkpointer.stats().checkpoints).toBeGreaterThanOrEqual(1);
    expect(rows(store)).toBe(550);
  });

  it('keeps the WAL bounded under sustained writes', async () => {
    const store = await open();
    // three times the bound, 50 pages a commit
    const most = await write(store, Math.ceil((3 * WAL_CHECKPOINT_PAGES) / 50));
    expect(rows(store)).toBe(50 * Math.ceil((3 * WAL_CHECKPOINT_PAGES) / 50));
    // at most the bound and the commit that crossed it, whoever checkpointed
    expect(most).toBeLessThan(WAL_CHECKPOINT_PAGES + 100);
    expect(store.sql.checkpointer!.stats().failures).toBe(0);
  });

  it('falls back to the event loop, bounded and said, while the thread is gone', async () => {
    const store = await open();
    const checkpointer = store.sql.checkpointer!;
    const told: string[] = [];
    const reported = new Promise<void>((resolve) =>
      checkpointer.report((level, message) => {
        told.push(`${level}: ${message}`);
        resolve();
      }),
    );
    // a checkpoint asked, and its thread ended before it could answer
    const asked = checkpointer.checkpoint();
    await checkpointer.thread!.terminate();
    expect(await asked).toBeUndefined();
    await reported;
    expect(told[0]).toMatch(/^warn: SQLite checkpointer thread stopped.*checkpointed on the event loop at 4000 pages/);
    expect(checkpointer.stats().failures).toBe(1);
    const before = checkpointer.stats().checkpoints;
    // the main connection checkpoints by itself meanwhile: the WAL stays within the bound
    const most = await write(store, Math.ceil((3 * WAL_CHECKPOINT_PAGES) / 50));
    expect(most).toBeGreaterThanOrEqual(WAL_CHECKPOINT_PAGES);
    expect(most).toBeLessThan(WAL_CHECKPOINT_PAGES + 100);
    expect(checkpointer.stats().checkpoints).toBe(before);
    expect(rows(store)).toBe(50 * Math.ceil((3 * WAL_CHECKPOINT_PAGES) / 50));
  });

  it('ends with the store: the thread stops, the WAL is checkpointed and removed, every row is there', async () => {
    const store = await createSqlStore({ url: join(dir, 'hearth.db'), readCache: false });
    store.sql.sqlite!.exec('create table scratch (id integer primary key, b blob not null)');
    await write(store, 20);
    await store.sql.checkpointer!.checkpoint();
    expect(store.sql.checkpointer!.thread).toBeDefined();
    await write(store, 5);
    await store.close();
    expect(store.sql.checkpointer!.thread).toBeUndefined();
    expect(existsSync(join(dir, 'hearth.db-wal'))).toBe(false);
    const db = new BetterSqlite3(join(dir, 'hearth.db'), { readonly: true });
    try {
      expect(db.prepare('select count(*) as n from scratch').get()).toEqual({ n: 1250 });
    } finally {
      db.close();
    }
  });

  it('starts no thread for an in-memory database, nor when asked not to', async () => {
    const memory = await createSqlStore({ url: ':memory:', readCache: false });
    onTestFinished(() => memory.close());
    expect(memory.sql.checkpointer).toBeUndefined();
    const cli = await createSqlStore({ url: join(dir, 'cli.db'), readCache: false, accessLogThread: false, checkpointThread: false });
    onTestFinished(() => cli.close());
    expect(cli.sql.checkpointer).toBeUndefined();
    // the main connection checkpoints by itself, as before
    expect(cli.sql.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
  });

  it('keeps every acknowledged row through a kill -9 while the thread checkpoints', { timeout: 120_000 }, async () => {
    const file = join(dir, 'hearth.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/sqlite-writer.ts', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let acked = 0;
    let errors = '';
    child.stderr!.on('data', (d) => (errors += d));
    // killed once the thread has checkpointed a few times, the writer mid-stream
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [, id, checkpoints] = line.split(' ').map(Number);
          acked = id;
          if (checkpoints >= 3) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
      child.on('exit', () => reject(new Error(`the writer exited: ${errors}`)));
    });
    await new Promise((r) => child.once('exit', r));
    expect(child.signalCode).toBe('SIGKILL');
    const db = new BetterSqlite3(file);
    try {
      const { n, last } = db.prepare('select count(*) as n, max(id) as last from crash_rows').get() as { n: number; last: number };
      // every acknowledged row is there, with nothing missing before the last
      expect(last).toBeGreaterThanOrEqual(acked);
      expect(n).toBe(last);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
