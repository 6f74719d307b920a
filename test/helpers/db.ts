// Real databases for tests, each one fresh and removed again by its cleanup: a SQLite file in its
// own temp directory, or a PostgreSQL schema of its own (`hearth_test_<random>`). Cleanup closes
// the store first (no handle may keep vitest alive), then removes only what it created.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createSqlStore, type SqlStore } from '../../src/adapters/sql/store.js';
import { withMigrationLock } from '../../src/adapters/sql/connect.js';

export interface TestStore {
  store: SqlStore;
  cleanup: () => Promise<void>;
}

/** PostgreSQL for the contract suites; unset means those suites are skipped */
export const testDatabaseUrl: string | undefined = process.env.HEARTH_TEST_DATABASE_URL || undefined;

/** a store on a new SQLite file (WAL mode) in a new temp directory */
export async function makeSqliteStore(): Promise<TestStore> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-test-'));
  let store: SqlStore;
  try {
    store = await createSqlStore({ url: join(dir, 'hearth.db') });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** a fresh schema name no other run uses */
export const freshSchemaName = () => `hearth_test_${randomBytes(6).toString('hex')}`;

/** drops one schema we created, through a client of its own (the store's pool is closed by then) */
export async function dropSchema(url: string, schema: string): Promise<void> {
  if (!/^hearth_test_[0-9a-f]+$/.test(schema)) throw new Error(`refusing to drop schema ${schema}`);
  // under the migration lock: a drop during another store's migration breaks its introspection
  await withMigrationLock(url, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await client.end();
    }
  });
}

/** a store on a new PostgreSQL schema of its own */
export async function makePostgresStore(url: string, schema = freshSchemaName()): Promise<TestStore> {
  let store: SqlStore;
  try {
    store = await createSqlStore({ url, schema });
  } catch (e) {
    // createSqlStore creates the schema before migrating: a failed migration leaves it behind
    await dropSchema(url, schema);
    throw e;
  }
  return {
    store,
    async cleanup() {
      try {
        await store.close();
      } finally {
        await dropSchema(url, schema);
      }
    },
  };
}
