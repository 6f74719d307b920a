// Key-value stores of devices and homes, each with a revision that grows by one per change.
// The revision row is bumped first inside the transaction: on PostgreSQL its row lock serialises
// concurrent writers of one store, so the key-count and store-size checks and the rev order cannot
// race (on SQLite one writer at a time; in cluster mode every node writes through that row lock).
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { precompiled } from './statements.js';
import type { RawSqlite } from './sqlite-raw.js';
import { KvKeyLimitError, KvStoreBytesError, type KvRepo, type KvScope } from '../../ports/store.js';
import { reloadBytes } from '../../domain/kv/reload-size.js';

type Db = Kysely<Database>;

async function bumpRev(db: Db, scope: KvScope, ownerId: number): Promise<number> {
  const r = await db
    .insertInto('kvRevs')
    .values({ scope, ownerId, rev: 1 })
    .onConflict((oc) => oc.columns(['scope', 'ownerId']).doUpdateSet({ rev: sql`kv_revs.rev + 1` }))
    .returning('rev')
    .executeTakeFirstOrThrow();
  return Number(r.rev);
}

async function currentRev(db: Db, scope: KvScope, ownerId: number): Promise<number> {
  const r = await db.selectFrom('kvRevs').select('rev').where('scope', '=', scope).where('ownerId', '=', ownerId).executeTakeFirst();
  return r ? Number(r.rev) : 0;
}

export function kvRepo(db: Db, inTransaction: <T>(fn: (db: Db) => Promise<T>) => Promise<T>, raw?: RawSqlite): KvRepo {
  const store = (q: Db, scope: KvScope, ownerId: number) => q.selectFrom('kv').where('scope', '=', scope).where('ownerId', '=', ownerId);

  // every device connect reloads its store, and most stores were never written: their revision
  // row is missing (every write bumps it first, in its transaction), so no transaction is needed
  const revOf = precompiled(db, () => db.selectFrom('kvRevs').select('rev').where('scope', '=', 'device').where('ownerId', '=', 0), raw);
  return {
    list: async (scope, ownerId, keyPrefix) => {
      if (!(await revOf(scope, ownerId))) return { rev: 0, items: [] };
      return inTransaction(async (t) => {
        let q = store(t, scope, ownerId).select(['key', 'value', 'modificationTime']);
        // exact, case-sensitive prefix on both dialects (LIKE is ASCII-insensitive on SQLite);
        // substr counts characters (code points), not UTF-16 units as String#length does
        if (keyPrefix) q = q.where(sql`substr(${sql.ref('key')}, 1, ${[...keyPrefix].length})`, '=', keyPrefix);
        const rows = await q.orderBy('key').execute();
        const rev = await currentRev(t, scope, ownerId);
        return { rev, items: rows.map((r) => ({ key: r.key, value: JSON.parse(r.value), modificationTime: r.modificationTime })) };
      });
    },

    async get(scope, ownerId, key) {
      const r = await store(db, scope, ownerId).select(['key', 'value', 'modificationTime']).where('key', '=', key).executeTakeFirst();
      return r && { key: r.key, value: JSON.parse(r.value), modificationTime: r.modificationTime };
    },

    set: (scope, ownerId, key, value, time, maxKeys, maxBytes) =>
      inTransaction(async (t) => {
        const rev = await bumpRev(t, scope, ownerId);
        const json = JSON.stringify(value);
        // the other pairs of the store (how many, the UTF-8 bytes of their key, value and time),
        // and the bytes of this key's pair as stored now (null: a new key)
        const bytesOf = sql`octet_length(${sql.ref('key')}) + octet_length(${sql.ref('value')}) + octet_length(${sql.ref('modificationTime')})`;
        const other = sql`${sql.ref('key')} <> ${key}`;
        const row = await store(t, scope, ownerId)
          .select([
            sql<string | number | null>`sum(case when ${other} then 1 else 0 end)`.as('n'),
            sql<string | number | null>`sum(case when ${other} then ${bytesOf} else 0 end)`.as('bytes'),
            sql<string | number | null>`sum(case when ${other} then null else ${bytesOf} end)`.as('own'),
          ])
          .executeTakeFirst();
        const n = Number(row?.n ?? 0);
        const own = row?.own == null ? undefined : Number(row.own);
        if (own === undefined && n >= maxKeys) throw new KvKeyLimitError(maxKeys);
        if (maxBytes !== undefined) {
          // docs/devices.md#limits: the store as its `reload` message serialises after this write;
          // a write that does not grow it passes (a store over a lowered bound can shrink)
          const others = Number(row?.bytes ?? 0);
          const after = reloadBytes(rev, n + 1, others + Buffer.byteLength(key) + Buffer.byteLength(json) + Buffer.byteLength(time));
          const before = own === undefined ? reloadBytes(rev - 1, n, others) : reloadBytes(rev - 1, n + 1, others + own);
          if (after > maxBytes && after > before) throw new KvStoreBytesError(maxBytes, after);
        }
        await t
          .insertInto('kv')
          .values({ scope, ownerId, key, value: json, modificationTime: time })
          .onConflict((oc) => oc.columns(['scope', 'ownerId', 'key']).doUpdateSet({ value: json, modificationTime: time }))
          .execute();
        return { rev };
      }),

    delete: (scope, ownerId, key) =>
      inTransaction(async (t) => {
        const r = await t.deleteFrom('kv').where('scope', '=', scope).where('ownerId', '=', ownerId).where('key', '=', key).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return undefined;
        return { rev: await bumpRev(t, scope, ownerId) };
      }),

    drop: (scope, ownerId) =>
      inTransaction(async (t) => {
        await t.deleteFrom('kv').where('scope', '=', scope).where('ownerId', '=', ownerId).execute();
        await t.deleteFrom('kvRevs').where('scope', '=', scope).where('ownerId', '=', ownerId).execute();
      }),
  };
}
