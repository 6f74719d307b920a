// SQLite keeps the access log in a file of its own (connect.ts), written by a thread
// (access-log-writer.ts): rows committed there are what the API lists, in order; a failed batch
// says why; a dead thread fails its batches and the next batch starts a new one; closing the
// store commits what was handed over; a database from before the move keeps its rows.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from 'kysely';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { accessLogFile } from '../../../src/adapters/sql/connect.js';
import { migrationProvider } from '../../../src/adapters/sql/migrations.js';
import { decode, encode } from '../../../src/adapters/sql/access-log-protocol.js';
import { accessLogRow } from '../../helpers/store-seed.js';
import type { AccessLogRow } from '../../../src/ports/store.js';

const row = accessLogRow;
const all = { skip: 0, limit: 10_000 };

describe('access log in its own SQLite file', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-alogfile-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  async function open(file: string): Promise<SqlStore> {
    const store = await createSqlStore({ url: file });
    let closed = false;
    cleanups.push(() => (closed ? undefined : store.close()));
    const close = store.close.bind(store);
    return Object.assign(store, { close: () => ((closed = true), close()) });
  }

  it('encodes a batch for the thread without losing a value: each distinct text once, numbers exact', () => {
    const rows: AccessLogRow[] = [
      { ...row(0), path: '/devices/1/kv/é😀', latency: 2 ** 53 - 1 },
      { ...row(1), clientIp: '::1', method: 'DELETE', statusCode: 404 },
      { ...row(0), path: '/devices/1/kv/é😀', projectId: 7 },
    ];
    const batch = encode(rows);
    expect(batch.strings).toEqual(['10.0.0.1', 'GET', '/devices/1/kv/é😀', row(0).timestamp, '::1', 'DELETE', '/r/1', row(1).timestamp]);
    expect(decode(batch)).toEqual(rows.flatMap((r) => [r.projectId, r.clientIp, r.latency, r.method, r.path, r.statusCode, r.timestamp]));
    expect(decode(encode([]))).toEqual([]);
  });

  it('refuses to start, saying which file, when the access-log file cannot be opened', async () => {
    const dir = tempDir();
    // a directory where the file should be
    mkdirSync(join(dir, 'hearth-access-log.db'));
    await expect(createSqlStore({ url: join(dir, 'hearth.db') })).rejects.toThrow(/cannot open the access-log database .*hearth-access-log\.db/);
  });

  it('names the file after the database', () => {
    expect(accessLogFile('/var/lib/hearth/hearth.db')).toBe('/var/lib/hearth/hearth-access-log.db');
    expect(accessLogFile('data/store')).toBe('data/store-access-log.db');
  });

  it('writes through the thread into the access-log file, and lists the rows in order once write resolves', async () => {
    const dir = tempDir();
    const store = await open(join(dir, 'hearth.db'));
    expect(store.sql.accessLogWriter).toBeDefined();
    // three batches handed over at once: each is committed in the order given
    await Promise.all([
      store.accessLogs.insertMany([0, 1, 2].map((n) => row(n))),
      store.accessLogs.insertMany([3, 4].map((n) => row(n))),
      store.accessLogs.insertMany([5].map((n) => row(n))),
    ]);
    expect(store.sql.accessLogWriter!.thread).toBeDefined();
    const listed = await store.accessLogs.list({ projectId: 1 }, all);
    expect(listed.total).toBe(6);
    expect(listed.items).toEqual([5, 4, 3, 2, 1, 0].map((n) => row(n)));
    // in the other file, not the main one
    const main = new BetterSqlite3(join(dir, 'hearth.db'), { readonly: true });
    expect(main.prepare("select count(*) n from main.sqlite_master where name = 'access_logs'").get()).toEqual({ n: 0 });
    main.close();
    const side = new BetterSqlite3(join(dir, 'hearth-access-log.db'), { readonly: true });
    expect(side.prepare('select count(*) n from access_logs').get()).toEqual({ n: 6 });
    side.close();
  });

  it("leaves the main file's data_version alone: the read cache is not emptied by the thread's commits", async () => {
    const store = await open(join(tempDir(), 'hearth.db'));
    const version = () => store.sql.sqlite!.prepare('pragma data_version').pluck().get();
    await store.accessLogs.insertMany([row(0)]);
    const before = version();
    for (let i = 1; i <= 3; i++) await store.accessLogs.insertMany([row(i)]);
    expect(version()).toBe(before);
    expect(store.sql.sqlite!.prepare('pragma access_log.data_version').pluck().get()).not.toBe(undefined);
    // the check itself works: a commit by another connection to the main file changes it
    const other = new BetterSqlite3(store.sql.sqlite!.name);
    other.exec("insert into kv_revs (scope, owner_id, rev) values ('x', 1, 1)");
    other.close();
    expect(version()).not.toBe(before);
  });

  it('rejects a batch the database refuses, with its reason, writes none of it, and goes on with the next', async () => {
    const store = await open(join(tempDir(), 'hearth.db'));
    const bad = { ...row(1), path: null } as unknown as AccessLogRow;
    await expect(store.accessLogs.insertMany([row(0), bad])).rejects.toThrow(/NOT NULL constraint failed: access_logs.path/);
    expect((await store.accessLogs.list({ projectId: 1 }, all)).total).toBe(0);
    await store.accessLogs.insertMany([row(2)]);
    expect((await store.accessLogs.list({ projectId: 1 }, all)).items).toEqual([row(2)]);
  });

  it('fails the batches of a thread that dies, and starts a new thread for the next batch', async () => {
    const store = await open(join(tempDir(), 'hearth.db'));
    const writer = store.sql.accessLogWriter!;
    await store.accessLogs.insertMany([row(0)]);
    const first = writer.thread!;
    // handed to the thread after it was told to stop (and before it has exited): never written.
    // (Posted before terminate(), the thread could commit it first: that ordering is a race.)
    const ended = first.terminate();
    const lost = store.accessLogs.insertMany([row(1)]);
    await ended;
    await expect(lost).rejects.toThrow(/access-log writer thread stopped/);
    await store.accessLogs.insertMany([row(2)]);
    expect(writer.thread).toBeDefined();
    expect(writer.thread).not.toBe(first);
    const paths = (await store.accessLogs.list({ projectId: 1 }, all)).items.map((r) => r.path);
    expect(paths).toEqual(['/r/2', '/r/0']);
  });

  it('commits the batches handed over before close(), then refuses more', async () => {
    const file = join(tempDir(), 'hearth.db');
    const store = await open(file);
    const writes = [store.accessLogs.insertMany(Array.from({ length: 500 }, (_, n) => row(n))), store.accessLogs.insertMany([row(500)])];
    const writer = store.sql.accessLogWriter!;
    await store.close();
    await Promise.all(writes);
    expect(writer.thread).toBeUndefined();
    await expect(writer.write([row(501)])).rejects.toThrow(/closed/);
    const again = await open(file);
    expect((await again.accessLogs.list({ projectId: 1 }, all)).total).toBe(501);
  });

  it("keeps a transaction's rows in the transaction (written on the connection, rolled back with it)", async () => {
    const store = await open(join(tempDir(), 'hearth.db'));
    await expect(
      store.transaction(async (tx) => {
        await tx.accessLogs.insertMany([row(0)]);
        expect((await tx.accessLogs.list({ projectId: 1 }, all)).total).toBe(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await store.accessLogs.list({ projectId: 1 }, all)).total).toBe(0);
    expect(store.sql.accessLogWriter!.thread).toBeUndefined();
  });

  it('an in-memory (or temporary) database keeps its access log alike, written without a thread', async () => {
    for (const url of [':memory:', '']) {
      const store = await createSqlStore({ url });
      cleanups.push(() => store.close());
      expect(store.sql.accessLogWriter).toBeUndefined();
      await store.accessLogs.insertMany([row(0), row(1)]);
      expect((await store.accessLogs.list({ projectId: 1 }, all)).items).toEqual([row(1), row(0)]);
    }
    expect(existsSync('-access-log.db')).toBe(false);
  });

  it('moves the rows of a database from before the move into the new file, ids and order kept', async () => {
    const dir = tempDir();
    const file = join(dir, 'hearth.db');
    // a database migrated up to 0004, as the previous release left it, with rows in its access_logs
    const old = new BetterSqlite3(file);
    old.pragma('journal_mode = WAL');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: old }) });
    const full = migrationProvider('sqlite');
    const upTo4: MigrationProvider = {
      async getMigrations() {
        const m = await full.getMigrations();
        return Object.fromEntries(Object.entries(m).filter(([name]) => name < '0005'));
      },
    };
    const { error } = await new Migrator({ db, provider: upTo4 }).migrateToLatest();
    expect(error).toBeUndefined();
    const insert = old.prepare('insert into access_logs (project_id, client_ip, latency, method, path, status_code, timestamp) values (?, ?, ?, ?, ?, ?, ?)');
    for (let n = 0; n < 3; n++) {
      const r = row(n, n === 1 ? 2 : 1);
      insert.run(r.projectId, r.clientIp, r.latency, r.method, r.path, r.statusCode, r.timestamp);
    }
    await db.destroy();
    expect(existsSync(join(dir, 'hearth-access-log.db'))).toBe(false);

    const store = await open(file);
    expect((await store.accessLogs.list({ projectId: 1 }, all)).items).toEqual([row(2), row(0)]);
    expect((await store.accessLogs.list({ projectId: 2 }, all)).items).toEqual([row(1, 2)]);
    // new rows come after the moved ones
    await store.accessLogs.insertMany([row(3)]);
    await store.close();
    const side = new BetterSqlite3(join(dir, 'hearth-access-log.db'), { readonly: true });
    expect(side.prepare('select id, path from access_logs order by id').all()).toEqual([
      { id: 1, path: '/r/0' },
      { id: 2, path: '/r/1' },
      { id: 3, path: '/r/2' },
      { id: 4, path: '/r/3' },
    ]);
    side.close();
    const main = new BetterSqlite3(file, { readonly: true });
    expect(main.prepare("select count(*) n from main.sqlite_master where name = 'access_logs'").get()).toEqual({ n: 0 });
    main.close();
  });
});
