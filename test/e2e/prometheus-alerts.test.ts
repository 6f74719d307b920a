// config/prometheus-alerts.example.yml names only series a running server exports
// (docs/operations.md#what-to-watch): every hearth_* name in the group `hearth` is on the /metrics of
// an embedded server (histograms by their _bucket/_sum/_count series; `up` is Prometheus's own), and the group
// `hearth-cluster`'s on a cluster-mode server's (PostgreSQL and Redis, when the test has them).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis } from '../../src/adapters/redis/client.js';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { deleteKeys, REDIS_URL, testPrefix } from '../helpers/redis.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RULES = readFileSync(join(ROOT, 'config/prometheus-alerts.example.yml'), 'utf8');

/** the rules file's groups by name, each with the hearth_* series its expressions name */
function seriesByGroup(text: string): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of text.split('\n')) {
    const group = /^ {2}- name: (\S+)/.exec(line);
    if (group) groups.set(group[1], (current = new Set()));
    const expr = /^\s+expr: (.*)$/.exec(line);
    if (expr && current) for (const m of expr[1].matchAll(/\bhearth_[a-z0-9_]+/g)) current.add(m[0]);
  }
  return groups;
}

/**
 * the series a /metrics text declares (`# TYPE <name> <type>`, so a labelled counter that has
 * counted nothing yet counts too), a histogram's as its _bucket, _sum and _count
 */
async function exported(url: string): Promise<Set<string>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
      type === 'histogram' ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
    ),
  );
}

const groups = seriesByGroup(RULES);
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the example Prometheus alert rules', () => {
  it('hold the three groups, with the series of every alert found', () => {
    expect([...groups.keys()]).toEqual(['hearth', 'hearth-cluster', 'hearth-sqlite']);
    expect(groups.get('hearth')!.size).toBeGreaterThanOrEqual(10);
    expect([...groups.get('hearth-cluster')!].sort()).toEqual(['hearth_pg_pool_waiting_queries', 'hearth_redis_up']);
    expect([...groups.get('hearth-sqlite')!]).toEqual(['hearth_sqlite_checkpoint_failures_total']);
    // every rule has an expression and a summary
    expect(RULES.match(/^\s+- alert: /gm)!.length).toBe(RULES.match(/^\s+expr: /gm)!.length);
    expect(RULES.match(/^\s+- alert: /gm)!.length).toBe(RULES.match(/^\s+summary: /gm)!.length);
  });

  it("name only series an embedded server's /metrics exports (SQLite)", async () => {
    const t: TestHearth = await startTestHearth();
    cleanups.push(() => t.close());
    const have = await exported(t.httpUrl);
    // positive control: a series every node exports
    expect(have).toContain('hearth_process_resident_memory_bytes');
    const missing = [...groups.get('hearth')!, ...groups.get('hearth-sqlite')!].filter((s) => !have.has(s));
    expect(missing).toEqual([]);
  }, 120_000);

  it.skipIf(!(testDatabaseUrl && REDIS_URL))(
    "name only series a cluster-mode server's /metrics exports",
    async () => {
      const schema = freshSchemaName();
      const prefix = testPrefix();
      const t: TestHearth = await startTestHearth({ databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix });
      cleanups.push(async () => {
        await t.close();
        await dropSchema(testDatabaseUrl!, schema);
        const client = await connectRedis({ url: REDIS_URL! });
        await deleteKeys(client, prefix);
        await closeRedis(client);
      });
      const have = await exported(t.httpUrl);
      expect(have).toContain('hearth_process_resident_memory_bytes');
      const all = [...groups.get('hearth')!, ...groups.get('hearth-cluster')!];
      expect(all.filter((s) => !have.has(s))).toEqual([]);
    },
    120_000,
  );
});
