// The Store contract against PostgreSQL, only when HEARTH_TEST_DATABASE_URL is set. Each test gets
// a schema of its own (`hearth_test_<random>`), and its cleanup drops that schema and no other.
import { describe, expect, it, onTestFinished } from 'vitest';
import pg from 'pg';
import { storeContract } from './store.js';
import { makePostgresStore, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';

const url = testDatabaseUrl ?? '';

describe.skipIf(!testDatabaseUrl)('postgres', () => {
  storeContract('postgres', () => makePostgresStore(url));

  it('keeps its tables in its own schema and drops only that schema', async () => {
    const schema = freshSchemaName();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    const tablesIn = async (s: string) =>
      (await client.query('select count(*)::int as n from information_schema.tables where table_schema = $1', [s])).rows[0].n;
    const { store, cleanup } = await makePostgresStore(url, schema);
    await store.projects.create({ name: 'x', creationTime: new Date().toISOString() });
    expect(await tablesIn(schema)).toBeGreaterThan(10);
    await cleanup();
    expect(await tablesIn(schema)).toBe(0);
  });
});
