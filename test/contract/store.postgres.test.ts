// The Store contract against PostgreSQL, only when HEARTH_TEST_DATABASE_URL is set. Each test gets
// a schema of its own (`hearth_test_<random>`), and its cleanup drops that schema and no other.
import { describe, expect, it, onTestFinished } from 'vitest';
import pg from 'pg';
import { storeContract } from './store.js';
import { makePostgresStore, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import { bootstrapIfEmpty } from '../../src/domain/project/bootstrap.js';
import { systemClock } from '../../src/ports/clock.js';

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

  it('nodes starting together on an empty database create the first project once', async () => {
    const schema = freshSchemaName();
    const { store, cleanup } = await makePostgresStore(url, schema);
    onTestFinished(cleanup);
    // three more nodes, each with its own pool, on the same schema
    const nodes = await Promise.all([1, 2, 3].map(() => createSqlStore({ url, schema })));
    onTestFinished(() => Promise.all(nodes.map((n) => n.close())).then(() => undefined));
    const results = await Promise.all(nodes.map((n) => bootstrapIfEmpty({ deps: { store: n, clock: systemClock } })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.projects.count()).toBe(1);
  });
});
