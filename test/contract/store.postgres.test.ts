// The Store contract against PostgreSQL, only when HEARTH_TEST_DATABASE_URL is set. Each test gets
// a schema of its own (`hearth_test_<random>`), and its cleanup drops that schema and no other.
import { describe, expect, it, onTestFinished } from 'vitest';
import pg from 'pg';
import { storeContract } from './store.js';
import { makePostgresStore, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import { bootstrapIfEmpty } from '../../src/domain/project/bootstrap.js';
import { systemClock } from '../../src/ports/clock.js';
import { RandomSource } from '../../src/domain/crypto/random.js';
import { KvStoreBytesError } from '../../src/ports/store.js';
import { reloadSize } from './store/kv.limits.js';

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
    const random = new RandomSource();
    onTestFinished(() => Promise.all(nodes.map((n) => n.close())).then(() => undefined));
    const results = await Promise.all(nodes.map((n) => bootstrapIfEmpty({ deps: { store: n, clock: systemClock, random } })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.projects.count()).toBe(1);
  });

  it('two nodes writing one KV store at once keep its byte bound (docs/devices.md#limits)', async () => {
    const schema = freshSchemaName();
    const { store, cleanup } = await makePostgresStore(url, schema);
    onTestFinished(cleanup);
    const other = await createSqlStore({ url, schema });
    onTestFinished(() => other.close());
    const writes = [store, other].flatMap((node, n) =>
      Array.from({ length: 15 }, (_, i) => node.kv.set('device', 1, `n${n}k${i}`, 'v'.repeat(1000), new Date().toISOString(), 1000, 8192)),
    );
    const results = await Promise.allSettled(writes);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(KvStoreBytesError);
    const won = results.filter((r) => r.status === 'fulfilled').length;
    expect(won).toBeGreaterThan(0);
    expect(await reloadSize(store, 1)).toBeLessThanOrEqual(8192);
    expect((await other.kv.list('device', 1)).items).toHaveLength(won);
  });
});
