// SQLite's page cache per connection and database file (docs/operations.md#sizing): a setting,
// sqlite.cacheBytes, applied to the main file and the access log on the server's connection and
// in the access-log thread; the default is better-sqlite3's own (16,384,000 bytes).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/load.js';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { startTestHearth } from '../../helpers/hearth.js';
import { accessLogRow } from '../../helpers/store-seed.js';

const cacheOf = (store: unknown, schema: string) => (store as SqlStore).sql.sqlite!.pragma(`${schema}.cache_size`, { simple: true });

describe('SQLite page cache', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("is better-sqlite3's 16,000 KiB per database file by default", async () => {
    expect(loadConfig({}).sqlite.cacheBytes).toBe(16_384_000);
    const t = await startTestHearth();
    cleanups.push(() => t.close());
    expect(cacheOf(t.deps.store, 'main')).toBe(-16_000);
    expect(cacheOf(t.deps.store, 'access_log')).toBe(-16_000);
  });

  it('takes HEARTH_SQLITE_CACHE_BYTES for the main file and the access log', async () => {
    const config = loadConfig({ HEARTH_SQLITE_CACHE_BYTES: '2097152' });
    expect(config.sqlite.cacheBytes).toBe(2_097_152);
    const t = await startTestHearth({ sqlite: config.sqlite });
    cleanups.push(() => t.close());
    expect(cacheOf(t.deps.store, 'main')).toBe(-2048);
    expect(cacheOf(t.deps.store, 'access_log')).toBe(-2048);
  });

  it('starts the access-log thread with it, which writes as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-sqlite-cache-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await createSqlStore({ url: join(dir, 'hearth.db'), cacheBytes: 1_048_576 });
    cleanups.push(() => store.close());
    expect(store.sql.accessLogWriter).toBeDefined();
    await store.accessLogs.insertMany([0, 1, 2].map((n) => accessLogRow(n)));
    expect((await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10 })).total).toBe(3);
    expect(cacheOf(store, 'main')).toBe(-1024);
  });

  it('refuses less than 64 KiB with one line naming the variable', () => {
    expect(() => loadConfig({ HEARTH_SQLITE_CACHE_BYTES: '1000' })).toThrow(/HEARTH_SQLITE_CACHE_BYTES.*at least 65536/);
  });
});
