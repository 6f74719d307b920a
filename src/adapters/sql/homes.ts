// Homes and their members (ports/store/homes.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { HomeRepo, HomeRole, MemberRepo } from '../../ports/store.js';
import { deletedRow, pageOf } from './util.js';
import { precompiled } from './statements.js';

type Db = Kysely<Database>;

export function homeRepo(db: Db): HomeRepo {
  return {
    create: (h) => db.insertInto('homes').values(h).returningAll().executeTakeFirstOrThrow(),
    get: (id) => db.selectFrom('homes').selectAll().where('id', '=', id).executeTakeFirst(),
    async list(f, page) {
      let q = db.selectFrom('homes');
      if (f.projectId !== undefined) q = q.where('projectId', '=', f.projectId);
      if (f.userId !== undefined) {
        const uid = f.userId;
        q = q.where('id', 'in', (s) => s.selectFrom('members').select('homeId').where('userId', '=', uid));
      }
      return pageOf(
        q,
        page,
        (all) => all.selectAll().orderBy('id'),
        (r) => r,
      );
    },
    async update(id, patch) {
      if (patch.name !== undefined) await db.updateTable('homes').set({ name: patch.name }).where('id', '=', id).execute();
    },
    async delete(id) {
      const gone = await deletedRow(db.deleteFrom('homes').where('id', '=', id));
      await db.deleteFrom('members').where('homeId', '=', id).execute();
      return gone;
    },
  };
}

export function memberRepo(db: Db): MemberRepo {
  // the membership check of every user request on a home, compiled once (statements.ts)
  const memberOf = precompiled(db, () => db.selectFrom('members').selectAll().where('homeId', '=', 0).where('userId', '=', 0));
  return {
    async upsert(m) {
      await db
        .insertInto('members')
        .values(m)
        .onConflict((oc) => oc.columns(['homeId', 'userId']).doUpdateSet({ role: m.role }))
        .execute();
    },
    async get(homeId, userId) {
      const r = await memberOf(homeId, userId);
      return r && { ...r, role: r.role as HomeRole };
    },
    async list(homeId) {
      const rows = await db.selectFrom('members').selectAll().where('homeId', '=', homeId).orderBy('userId').execute();
      return rows.map((r) => ({ ...r, role: r.role as HomeRole }));
    },
    async homesOf(userId) {
      const rows = await db.selectFrom('members').select('homeId').where('userId', '=', userId).execute();
      return rows.map((r) => r.homeId);
    },
    delete: (homeId, userId) => deletedRow(db.deleteFrom('members').where('homeId', '=', homeId).where('userId', '=', userId)),
  };
}
