// Projects, API keys, users, sessions, homes, members, device classes, provisioning tokens and
// bundles: plain rows, one query each.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, DeviceClassesTable } from './schema.js';
import type { BundleRow, DeviceClassRow, HomeRole, ProjectRow, Store, UserRow } from '../../ports/store.js';
import { countOf, ilike, likePattern } from './util.js';
import { precompiled } from './statements.js';

type Db = Kysely<Database>;

/** pg_advisory_xact_lock key of first-start bootstraps (any constant no other lock uses) */
const FIRST_START_LOCK = 4_826_117_305;

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

const toProject = (
  r: Omit<ProjectRow, 'allowUserSignup' | 'verifyEmails' | 'commandActions'> & { allowUserSignup: number; verifyEmails: number; commandActions: string },
): ProjectRow => ({
  id: r.id,
  name: r.name,
  allowUserSignup: !!r.allowUserSignup,
  verifyEmails: !!r.verifyEmails,
  commandActions: r.commandActions === 'mode' ? 'mode' : 'spec',
  creationTime: r.creationTime,
});

/** the columns of each code purpose (migration 0011_accounts) */
const CODE_COLUMNS = {
  verify: { hash: 'verifyCodeHash', expiration: 'verifyCodeExpiration' },
  reset: { hash: 'resetCodeHash', expiration: 'resetCodeExpiration' },
} as const;

export function registryRepos(
  db: Db,
  dialect: 'sqlite' | 'postgres',
): Pick<Store, 'projects' | 'apiKeys' | 'users' | 'sessions' | 'homes' | 'members' | 'deviceClasses' | 'provisioningTokens' | 'bundles'> {
  // the lookups of every authenticated request, compiled once (statements.ts)
  const keyByHash = precompiled(db, () => db.selectFrom('apiKeys').selectAll().where('keyHash', '=', ''));
  const sessionByHash = precompiled(db, () => db.selectFrom('sessions').selectAll().where('tokenHash', '=', ''));
  const userById = precompiled(db, () => db.selectFrom('users').selectAll().where('id', '=', 0));
  const memberOf = precompiled(db, () => db.selectFrom('members').selectAll().where('homeId', '=', 0).where('userId', '=', 0));
  return {
    projects: {
      async create(p) {
        return toProject(await db.insertInto('projects').values(p).returningAll().executeTakeFirstOrThrow());
      },
      async get(id) {
        const r = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
        return r && toProject(r);
      },
      list: async () => (await db.selectFrom('projects').selectAll().orderBy('id').execute()).map(toProject),
      async update(id, patch) {
        const values: { name?: string; allowUserSignup?: number; verifyEmails?: number; commandActions?: string } = {};
        if (patch.name !== undefined) values.name = patch.name;
        if (patch.allowUserSignup !== undefined) values.allowUserSignup = patch.allowUserSignup ? 1 : 0;
        if (patch.verifyEmails !== undefined) values.verifyEmails = patch.verifyEmails ? 1 : 0;
        if (patch.commandActions !== undefined) values.commandActions = patch.commandActions;
        if (Object.keys(values).length) await db.updateTable('projects').set(values).where('id', '=', id).execute();
      },
      count: async () =>
        countOf(
          await db
            .selectFrom('projects')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirst(),
        ),
      async lockFirstStart() {
        // SQLite: one process owns the database file and its writes are serialised already
        if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FIRST_START_LOCK})`.execute(db);
      },
    },

    apiKeys: {
      async create(k) {
        await db
          .insertInto('apiKeys')
          .values({ ...k, scopes: JSON.stringify(k.scopes) })
          .execute();
      },
      async getByHash(keyHash) {
        const r = await keyByHash(keyHash);
        return r && { ...r, scopes: JSON.parse(r.scopes) };
      },
      async get(id) {
        const r = await db.selectFrom('apiKeys').selectAll().where('id', '=', id).executeTakeFirst();
        return r && { ...r, scopes: JSON.parse(r.scopes) };
      },
      async list(projectId) {
        const rows = await db.selectFrom('apiKeys').selectAll().where('projectId', '=', projectId).orderBy('creationTime').execute();
        return rows.map((r) => ({ ...r, scopes: JSON.parse(r.scopes) }));
      },
      async delete(id) {
        const r = await db.deleteFrom('apiKeys').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
    },

    users: {
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
      async getByEmail(projectId, email) {
        const r = await db.selectFrom('users').selectAll().where('projectId', '=', projectId).where('email', '=', email).executeTakeFirst();
        return r && toUser(r);
      },
      async list(f, page) {
        let q = db.selectFrom('users').where('projectId', '=', f.projectId);
        if (f.search) {
          const p = likePattern(f.search);
          q = q.where((e) => e.or([ilike('email', p), ilike('name', p)]));
        }
        const total = countOf(await q.select((e) => e.fn.countAll().as('n')).executeTakeFirst());
        const rows = await q.selectAll().orderBy('id').offset(page.skip).limit(page.limit).execute();
        return { total, items: rows.map(toUser) };
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
        const r = await db
          .updateTable('users')
          .set({ [c.hash]: null, [c.expiration]: null })
          .where('id', '=', id)
          .where(c.hash, '=', hash)
          .where(c.expiration, '>', now)
          .executeTakeFirst();
        return Number(r.numUpdatedRows) > 0;
      },
      async delete(id) {
        const r = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
    },

    sessions: {
      async create(s) {
        await db.insertInto('sessions').values(s).execute();
      },
      getByHash: (tokenHash) => sessionByHash(tokenHash),
      async delete(tokenHash) {
        const r = await db.deleteFrom('sessions').where('tokenHash', '=', tokenHash).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
      listForUser: (userId) => db.selectFrom('sessions').selectAll().where('userId', '=', userId).orderBy('creationTime').execute(),
      async deleteForUser(userId) {
        await db.deleteFrom('sessions').where('userId', '=', userId).execute();
      },
    },

    homes: {
      create: (h) => db.insertInto('homes').values(h).returningAll().executeTakeFirstOrThrow(),
      get: (id) => db.selectFrom('homes').selectAll().where('id', '=', id).executeTakeFirst(),
      async list(f, page) {
        let q = db.selectFrom('homes');
        if (f.projectId !== undefined) q = q.where('projectId', '=', f.projectId);
        if (f.userId !== undefined) {
          const uid = f.userId;
          q = q.where('id', 'in', (s) => s.selectFrom('members').select('homeId').where('userId', '=', uid));
        }
        const total = countOf(await q.select((e) => e.fn.countAll().as('n')).executeTakeFirst());
        const items = await q.selectAll().orderBy('id').offset(page.skip).limit(page.limit).execute();
        return { total, items };
      },
      async update(id, patch) {
        if (patch.name !== undefined) await db.updateTable('homes').set({ name: patch.name }).where('id', '=', id).execute();
      },
      async delete(id) {
        const r = await db.deleteFrom('homes').where('id', '=', id).executeTakeFirst();
        await db.deleteFrom('members').where('homeId', '=', id).execute();
        return Number(r.numDeletedRows) > 0;
      },
    },

    members: {
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
      async delete(homeId, userId) {
        const r = await db.deleteFrom('members').where('homeId', '=', homeId).where('userId', '=', userId).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
    },

    deviceClasses: {
      async create({ certificateRequired, ...c }) {
        await db
          .insertInto('deviceClasses')
          .values({ ...c, certificateRequired: certificateRequired ? 1 : 0 })
          .execute();
      },
      async get(projectId, id) {
        const r = await db.selectFrom('deviceClasses').selectAll().where('projectId', '=', projectId).where('id', '=', id).executeTakeFirst();
        return r && toDeviceClass(r);
      },
      list: async (projectId) =>
        (await db.selectFrom('deviceClasses').selectAll().where('projectId', '=', projectId).orderBy('id').execute()).map(toDeviceClass),
      async setCertificateRequired(projectId, id, required) {
        const r = await db
          .updateTable('deviceClasses')
          .set({ certificateRequired: required ? 1 : 0 })
          .where('projectId', '=', projectId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(r.numUpdatedRows) > 0;
      },
      async delete(projectId, id) {
        const r = await db.deleteFrom('deviceClasses').where('projectId', '=', projectId).where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
      async deviceCount(projectId, id) {
        return countOf(
          await db
            .selectFrom('devices')
            .select((e) => e.fn.countAll().as('n'))
            .where('projectId', '=', projectId)
            .where('deviceClass', '=', id)
            .executeTakeFirst(),
        );
      },
    },

    provisioningTokens: {
      async create(t) {
        await db.insertInto('provisioningTokens').values(t).execute();
      },
      async consume(tokenHash, now) {
        // One conditional UPDATE: of two concurrent uses of a single-use token, one wins.
        const r = await db
          .updateTable('provisioningTokens')
          .set({ usedTime: now })
          .where('tokenHash', '=', tokenHash)
          .where('usedTime', 'is', null)
          .where('expirationTime', '>', now)
          .returningAll()
          .executeTakeFirst();
        return r;
      },
    },

    bundles: {
      async create(b) {
        await db
          .insertInto('bundles')
          .values({ ...b, components: JSON.stringify(b.components) })
          .execute();
      },
      async get(id) {
        const r = await db.selectFrom('bundles').selectAll().where('id', '=', id).executeTakeFirst();
        return r && ({ ...r, components: JSON.parse(r.components) } as BundleRow);
      },
      async list(f) {
        let q = db.selectFrom('bundles').selectAll().where('projectId', '=', f.projectId);
        if (f.deviceClass !== undefined) q = q.where('deviceClass', '=', f.deviceClass);
        if (f.channel !== undefined) q = q.where('channel', '=', f.channel);
        const rows = await q.orderBy('creationTime').execute();
        return rows.map((r) => ({ ...r, components: JSON.parse(r.components) }) as BundleRow);
      },
      async delete(id) {
        const r = await db.deleteFrom('bundles').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      },
    },
  };
}

/** the 0/1 column as the boolean of the port */
function toDeviceClass({ certificateRequired, ...r }: Selectable<DeviceClassesTable>): DeviceClassRow {
  return { ...r, certificateRequired: certificateRequired === 1 };
}
