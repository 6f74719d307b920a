// Users and their sessions (ports/store/users.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { SessionRepo, UserRepo, UserRow } from '../../ports/store.js';
import { changedRow, deletedRow, firstOf, ilike, likePattern, pageOf } from './util.js';
import { precompiled } from './statements.js';

type Db = Kysely<Database>;

type UserColumns = Omit<UserRow, 'canCreateDevices' | 'verified'> & { canCreateDevices: number; verified: number };

/** the row without its code columns (codes are read only by takeCode, in SQL) */
const toUser = (r: UserColumns): UserRow => ({
  id: r.id,
  projectId: r.projectId,
  email: r.email,
  name: r.name,
  passwordHash: r.passwordHash,
  canCreateDevices: !!r.canCreateDevices,
  verified: !!r.verified,
  creationTime: r.creationTime,
});

/** the columns of each code purpose (migration 0011_accounts) */
const CODE_COLUMNS = {
  verify: { hash: 'verifyCodeHash', expiration: 'verifyCodeExpiration' },
  reset: { hash: 'resetCodeHash', expiration: 'resetCodeExpiration' },
} as const;

export function userRepo(db: Db): UserRepo {
  // the lookup of every request with a session, compiled once (statements.ts)
  const userById = precompiled(db, () => db.selectFrom('users').selectAll().where('id', '=', 0));
  return {
    async create(u) {
      const r = await db
        .insertInto('users')
        .values({ ...u, canCreateDevices: u.canCreateDevices ? 1 : 0, verified: u.verified === false ? 0 : 1 })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toUser(r);
    },
    async get(id) {
      const r = await userById(id);
      return r && toUser(r);
    },
    getByEmail: (projectId, email) => firstOf(db.selectFrom('users').selectAll().where('projectId', '=', projectId).where('email', '=', email), toUser),
    async list(f, page) {
      let q = db.selectFrom('users').where('projectId', '=', f.projectId);
      if (f.search) {
        const p = likePattern(f.search);
        q = q.where((e) => e.or([ilike('email', p), ilike('name', p)]));
      }
      return pageOf(q, page, (all) => all.selectAll().orderBy('id'), toUser);
    },
    async update(id, patch) {
      // a field given as undefined is not given: `set` with nothing left would be invalid SQL
      const values: Record<string, unknown> = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (patch.canCreateDevices !== undefined) values.canCreateDevices = patch.canCreateDevices ? 1 : 0;
      if (patch.verified !== undefined) values.verified = patch.verified ? 1 : 0;
      if (Object.keys(values).length) await db.updateTable('users').set(values).where('id', '=', id).execute();
    },
    async setCode(id, purpose, code) {
      const c = CODE_COLUMNS[purpose];
      await db
        .updateTable('users')
        .set({ [c.hash]: code?.hash ?? null, [c.expiration]: code?.expirationTime ?? null })
        .where('id', '=', id)
        .execute();
    },
    async takeCode(id, purpose, hash, now) {
      const c = CODE_COLUMNS[purpose];
      return changedRow(
        db
          .updateTable('users')
          .set({ [c.hash]: null, [c.expiration]: null })
          .where('id', '=', id)
          .where(c.hash, '=', hash)
          .where(c.expiration, '>', now),
      );
    },
    delete: (id) => deletedRow(db.deleteFrom('users').where('id', '=', id)),
  };
}

export function sessionRepo(db: Db): SessionRepo {
  const sessionByHash = precompiled(db, () => db.selectFrom('sessions').selectAll().where('tokenHash', '=', ''));
  return {
    async create(s) {
      await db.insertInto('sessions').values(s).execute();
    },
    getByHash: (tokenHash) => sessionByHash(tokenHash),
    delete: (tokenHash) => deletedRow(db.deleteFrom('sessions').where('tokenHash', '=', tokenHash)),
    listForUser: (userId) => db.selectFrom('sessions').selectAll().where('userId', '=', userId).orderBy('creationTime').execute(),
    async deleteForUser(userId) {
      await db.deleteFrom('sessions').where('userId', '=', userId).execute();
    },
  };
}
