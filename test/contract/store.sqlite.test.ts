// The Store contract against SQLite: a new database file (WAL mode) in a temp directory per test,
// directory removed by the cleanup.
import { describe, expect, it, onTestFinished } from 'vitest';
import { statSync } from 'node:fs';
import { sql } from 'kysely';
import { storeContract } from './store.js';
import { makeSqliteStore } from '../helpers/db.js';

storeContract('sqlite', makeSqliteStore);

// SQLite's numbers for PRAGMA synchronous
const FULL = 2;
const NORMAL = 1;

describe('sqlite store file', () => {
  it('runs in WAL mode', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const { rows } = await sql<Record<string, string>>`pragma journal_mode`.execute(store.sql.db);
    expect(Object.values(rows[0] ?? {})).toEqual(['wal']);
  });

  // docs/operations.md#durability: a commit that syncs later is made with NORMAL, on a connection held throughout
  it('leaves the connection at synchronous=FULL after a transaction that syncs later, committed or rolled back', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const synchronous = () => store.sql.sqlite!.pragma('synchronous', { simple: true });
    expect(synchronous()).toBe(FULL);
    let inside: unknown;
    await store.transaction(
      async (tx) => {
        inside = synchronous();
        await tx.projects.create({ name: 'p', creationTime: new Date(0).toISOString() });
      },
      { syncLater: true },
    );
    expect([inside, synchronous()]).toEqual([NORMAL, FULL]);
    await expect(store.transaction(() => Promise.reject(new Error('boom')), { syncLater: true })).rejects.toThrow('boom');
    expect(synchronous()).toBe(FULL);
    await store.synced();
    expect(await store.projects.count()).toBe(1);
  });
});

describe('sqlite WAL checkpoints', () => {
  // docs/operations.md#durability: SQLite copies the WAL into the database file by itself once it
  // holds 4,000 pages (about 16 MB), not SQLite's default 1,000, and then starts the WAL over
  it('checkpoints the WAL once it holds 4,000 pages, then starts it over', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const db = store.sql.sqlite!;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    // a WAL file is a 32-byte header and frames of a 24-byte header and a page
    const walPages = () => Math.floor((statSync(`${db.name}-wal`).size - 32) / (pageSize + 24));
    db.exec('create table scratch (b blob)');
    const insert = db.prepare('insert into scratch (b) values (randomblob(?))');
    // one row fills most of a page: 100 rows a commit write about 100 pages
    const commit = db.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run(pageSize - 200);
    });
    let most = 0;
    for (let c = 0; c < 55; c++) {
      commit();
      most = Math.max(most, walPages());
    }
    expect(db.prepare('select count(*) as n from scratch').get()).toEqual({ n: 5500 });
    // it grew past 4,000 pages (at 1,000 it would have started over near 1,100) and no further
    // than one commit beyond: the checkpoint at 4,000 let the next commit start the WAL over
    expect(most).toBeGreaterThanOrEqual(4000);
    expect(most).toBeLessThan(4300);
  });
});
