// The request hot path was made cheaper (`npm run bench -- api`): statements are reused, the
// auth lookups are compiled once, unsealed device keys are remembered. None of that may change
// what the code answers; these tests hold the behaviour still.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { Kysely, SqliteDialect } from 'kysely';
import { kyselyDatabase, precompiled, statementCache } from '../../../src/adapters/sql/statements.js';
import { rawSqlite } from '../../../src/adapters/sql/sqlite-raw.js';
import { RandomSource } from '../../../src/domain/crypto/random.js';
import { Sealer } from '../../../src/domain/crypto/sealer.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { sealerOf } from '../../helpers/credentials.js';

describe('hot path: unseal remembers plaintexts', () => {
  it('opens the same sealed value every time, and still refuses a wrong secret or a tampered value', () => {
    const random = new RandomSource();
    const one = new Sealer('secret-one-secret-one', random);
    const sealed = one.seal('dk.plain');
    expect(one.unseal(sealed)).toBe('dk.plain');
    expect(one.unseal(sealed)).toBe('dk.plain');
    expect(() => new Sealer('secret-two-secret-two', random).unseal(sealed)).toThrow();
    const [v, iv, tag, ct] = sealed.split('.');
    const flipped = ct.startsWith('A') ? 'B' + ct.slice(1) : 'A' + ct.slice(1);
    expect(() => one.unseal([v, iv, tag, flipped].join('.'))).toThrow();
  });
});

describe('hot path: SQLite statements and compiled lookups', () => {
  let dir: string;
  let store: SqlStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-hot-'));
    store = await createSqlStore({ url: join(dir, 'h.db') });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reuses a prepared statement for the same SQL and keeps at most `max` of them', () => {
    const raw = new BetterSqlite3(':memory:');
    const db = statementCache(raw, 2);
    const a = db.prepare('select 1');
    expect(db.prepare('select 1')).toBe(a);
    db.prepare('select 2');
    db.prepare('select 3'); // evicts the least recently used: `select 1` was used before `select 2`
    expect(db.size).toBe(2);
    expect(db.prepare('select 2')).not.toBe(a);
    expect(db.prepare('select 1')).not.toBe(a);
    raw.close();
  });

  it('keeps the raw hot statements in the same per-database cache as Kysely’s', async () => {
    const { device } = await seedDevice({ store, sealer: sealerOf('s'.repeat(20)) });
    const event = { eventType: 'hot', eventData: {}, timestamp: new Date(0).toISOString() };
    await store.events.insertMany([{ id: 'e-hot', projectId: device.projectId, event }]); // sqlite-raw.ts
    const statements = store.sql.statements!;
    const size = statements.size;
    // the insert the raw path ran is already prepared here: asking for it adds nothing
    statements.prepare('insert into events (id, project_id, home_id, device_id, event_type, timestamp, body) values (?, ?, ?, ?, ?, ?, ?)');
    expect(statements.size).toBe(size);
    expect((await store.events.list({ projectId: device.projectId }, { skip: 0, limit: 10 })).items.map((e) => e.id)).toContain('e-hot');
  });

  it('answers the auth lookups exactly as before: camelCase rows, misses as undefined', async () => {
    const { device, key } = await seedDevice({ store, sealer: sealerOf('s'.repeat(20)) });
    expect(await store.devices.get(device.id)).toEqual(device);
    expect(await store.devices.getByKeyHash(device.apiKeyHash)).toEqual(device);
    expect(await store.devices.get(device.id + 1000)).toBeUndefined();
    expect(key.startsWith('dk.')).toBe(true);
  });

  it('runs a compiled lookup inside a transaction, seeing that transaction’s writes', async () => {
    const seen = await store.transaction(async (tx) => {
      const { device } = await seedDevice({ store: tx, sealer: sealerOf('s'.repeat(20)) });
      return tx.devices.get(device.id);
    });
    expect(seen?.deviceClass).toBe('default');
  });

  it('reads a compiled lookup on SQLite without Kysely, the same row as Kysely gives (camelCase, every column)', async () => {
    const { device } = await seedDevice({ store, sealer: sealerOf('s'.repeat(20)) });
    const { db, sqlite, statements } = store.sql;
    const raw = rawSqlite(db, sqlite!, statements!, false);
    const build = () => db.selectFrom('devices').selectAll().where('id', '=', 0);
    const direct = precompiled(db, build, raw);
    const viaKysely = precompiled(db, build);
    const row = await direct(device.id);
    expect(row).toEqual(await viaKysely(device.id));
    expect(row).toHaveProperty('apiKeyHash', device.apiKeyHash);
    expect(row).toHaveProperty('lastConnectTime');
    expect(await direct(device.id + 1000)).toBeUndefined();
    // a write takes Kysely's way (and still works)
    const rename = precompiled(db, () => db.updateTable('devices').set({ name: '' }).where('id', '=', 0), raw);
    await rename('renamed', device.id);
    expect(await direct(device.id)).toHaveProperty('name', 'renamed');
  });

  it('waits for another caller’s open transaction instead of reading its uncommitted rows', async () => {
    const { device } = await seedDevice({ store, sealer: sealerOf('s'.repeat(20)) }, { name: 'before' });
    const { db, sqlite, statements } = store.sql;
    const byId = precompiled(db, () => db.selectFrom('devices').selectAll().where('id', '=', 0), rawSqlite(db, sqlite!, statements!, false));
    const during = async (name: string, fail: boolean) => {
      let open = true;
      let answeredWhileOpen: boolean | undefined;
      let read: Promise<{ name: string | null } | undefined> | undefined;
      await db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('devices').set({ name }).where('id', '=', device.id).execute();
          read = byId(device.id);
          void read.then(() => (answeredWhileOpen = open));
          // turns of the event loop with the transaction open: a read at once would be answered by now
          for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
          open = false;
          if (fail) throw new Error('rolled back');
        })
        .catch(() => undefined);
      const row = await read!;
      return { answeredWhileOpen, name: row?.name };
    };
    // a positive control first: the committed name is read, after the commit
    expect(await during('committed', false)).toEqual({ answeredWhileOpen: false, name: 'committed' });
    expect(await during('rolled back', true)).toEqual({ answeredWhileOpen: false, name: 'committed' });
  });

  it('refuses a compiled lookup called with the wrong number of parameters', async () => {
    const byId = precompiled(store.sql.db, () => store.sql.db.selectFrom('devices').selectAll().where('id', '=', 0));
    await expect(byId()).rejects.toThrow(/takes 1 parameters/);
  });
});

describe('hot path: relaxed bookkeeping commits (sqlite-raw.ts, RELAXED)', () => {
  // SQLite's codes: 1 NORMAL (the commit goes into the WAL without an fsync), 2 FULL
  const level = (d: BetterSqlite3.Database) => d.pragma('main.synchronous', { simple: true });

  function open(file: string, synchronous: 'FULL' | 'NORMAL') {
    const database = new BetterSqlite3(file);
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${synchronous}`);
    database.exec('create table t (v integer)');
    const statements = statementCache(database);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: kyselyDatabase(database, statements) }) });
    return { database, db, raw: rawSqlite(db, database, statements, false) };
  }

  it('commits a relaxed transaction without the fsync of FULL, then puts FULL back, even when it throws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-relaxed-'));
    const { database, db, raw } = open(join(dir, 'r.db'), 'FULL');
    try {
      const seen: unknown[] = [];
      await raw((c) =>
        c.atomically(
          () => {
            seen.push(level(database));
            c.prepare('insert into t (v) values (1)').run();
          },
          { relaxed: true },
        ),
      );
      // a durable one (an event's commit) is FULL while it runs
      await raw((c) => c.atomically(() => void seen.push(level(database))));
      expect(seen).toEqual([1, 2]);
      expect(level(database)).toBe(2);

      await expect(
        raw((c) =>
          c.atomically(
            () => {
              c.prepare('insert into t (v) values (2)').run();
              throw new Error('half way');
            },
            { relaxed: true, immediate: true },
          ),
        ),
      ).rejects.toThrow('half way');
      expect(level(database)).toBe(2);
      // all or none still holds: the relaxed one that threw left nothing
      expect(database.prepare('select v from t order by v').pluck().all()).toEqual([1]);

      // inside a caller's transaction it is the caller's, as durable as the caller's commit
      seen.length = 0;
      await raw((c) => c.atomically(() => c.atomically(() => void seen.push(level(database)), { relaxed: true })));
      expect(seen).toEqual([2]);
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a database opened with synchronous=normal as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-relaxed-'));
    const { database, db, raw } = open(join(dir, 'n.db'), 'NORMAL');
    try {
      await raw((c) => c.atomically(() => void c.prepare('insert into t (v) values (3)').run(), { relaxed: true }));
      expect(level(database)).toBe(1);
      expect(database.prepare('select count(*) from t').pluck().get()).toBe(1);
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
