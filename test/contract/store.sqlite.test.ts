// The Store contract against SQLite: a new database file (WAL mode) in a temp directory per test,
// directory removed by the cleanup.
import { describe, expect, it, onTestFinished } from 'vitest';
import { sql } from 'kysely';
import { storeContract } from './store.js';
import { makeSqliteStore } from '../helpers/db.js';

storeContract('sqlite', makeSqliteStore);

describe('sqlite store file', () => {
  it('runs in WAL mode', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const { rows } = await sql<Record<string, string>>`pragma journal_mode`.execute(store.sql.db);
    expect(Object.values(rows[0] ?? {})).toEqual(['wal']);
  });
});
