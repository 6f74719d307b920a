// Key-value stores of devices and homes, each with a revision that grows by one per change.
// The revision row is bumped first inside the transaction: on PostgreSQL its row lock serialises
// concurrent writers of one store, so the key-count check and the rev order cannot race.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { KvKeyLimitError, type KvRepo, type KvScope } from '../../ports/store.js';
import { countOf } from './util.js';

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

export function kvRepo(db: Db, inTransaction: <T>(fn: (db: Db) => Promise<T>) => Promise<T>): KvRepo {
  const store = (q: Db, scope: KvScope, ownerId: number) => q.selectFrom('kv').where('scope', '=', scope).where('ownerId', '=', ownerId);

  return {
    list: (scope, ownerId, keyPrefix) =>
      inTransaction(async (t) => {
        let q = store(t, scope, ownerId).select(['key', 'value', 'modificationTime']);
        // exact, case-sensitive prefix on both dialects (LIKE is ASCII-insensitive on SQLite);
        // substr counts characters (code points), not UTF-16 units as String#length does
        if (keyPrefix) q = q.where(sql`substr(${sql.ref('key')}, 1, ${[...keyPrefix].length})`, '=', keyPrefix);
        const rows = await q.orderBy('key').execute();
        const rev = await currentRev(t, scope, ownerId);
        return { rev, items: rows.map((r) => ({ key: r.key, value: JSON.parse(r.value), modificationTime: r.modificationTime })) };
      }),

    async get(scope, ownerId, key) {
      const r = await store(db, scope, ownerId).select(['key', 'value', 'modificationTime']).where('key', '=', key).executeTakeFirst();
      return r && { key: r.key, value: JSON.parse(r.value), modificationTime: r.modificationTime };
    },

    set: (scope, ownerId, key, value, time, maxKeys) =>
      inTransaction(async (t) => {
        const rev = await bumpRev(t, scope, ownerId);
        const exists = await store(t, scope, ownerId).select('key').where('key', '=', key).executeTakeFirst();
        if (!exists) {
          const n = countOf(
            await store(t, scope, ownerId)
              .select((e) => e.fn.countAll().as('n'))
              .executeTakeFirst(),
          );
          if (n >= maxKeys) throw new KvKeyLimitError(maxKeys);
        }
        const json = JSON.stringify(value);
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
