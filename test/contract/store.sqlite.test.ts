// The Store contract against SQLite: a new database file (WAL mode) in a temp directory per test,
// directory removed by the cleanup.
import { describe, expect, it, onTestFinished } from 'vitest';
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
