// Projects and their API keys (ports/store/projects.ts).
import { sql, type Kysely } from 'kysely';
import type { ApiKeysTable, Database } from './schema.js';
import type { ApiKeyRepo, ApiKeyRow, ProjectRepo, ProjectRow } from '../../ports/store.js';
import { countRows, deletedRow, firstOf, rowsOf } from './util.js';
import { precompiled } from './statements.js';

type Db = Kysely<Database>;

/** pg_advisory_xact_lock key of first-start bootstraps (any constant no other lock uses) */
const FIRST_START_LOCK = 4_826_117_305;

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

export function projectRepo(db: Db, dialect: 'sqlite' | 'postgres'): ProjectRepo {
  return {
    async create(p) {
      return toProject(await db.insertInto('projects').values(p).returningAll().executeTakeFirstOrThrow());
    },
    get: (id) => firstOf(db.selectFrom('projects').selectAll().where('id', '=', id), toProject),
    list: () => rowsOf(db.selectFrom('projects').selectAll().orderBy('id'), toProject),
    async update(id, patch) {
      const values: { name?: string; allowUserSignup?: number; verifyEmails?: number; commandActions?: string } = {};
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.allowUserSignup !== undefined) values.allowUserSignup = patch.allowUserSignup ? 1 : 0;
      if (patch.verifyEmails !== undefined) values.verifyEmails = patch.verifyEmails ? 1 : 0;
      if (patch.commandActions !== undefined) values.commandActions = patch.commandActions;
      if (Object.keys(values).length) await db.updateTable('projects').set(values).where('id', '=', id).execute();
    },
    count: () => countRows(db.selectFrom('projects')),
    async lockFirstStart() {
      // SQLite: one process owns the database file and its writes are serialised already
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FIRST_START_LOCK})`.execute(db);
    },
  };
}

const toApiKey = (r: ApiKeysTable): ApiKeyRow => ({ ...r, scopes: JSON.parse(r.scopes) });

export function apiKeyRepo(db: Db): ApiKeyRepo {
  // the lookup of every request with an API key, compiled once (statements.ts)
  const keyByHash = precompiled(db, () => db.selectFrom('apiKeys').selectAll().where('keyHash', '=', ''));
  return {
    async create(k) {
      await db
        .insertInto('apiKeys')
        .values({ ...k, scopes: JSON.stringify(k.scopes) })
        .execute();
    },
    async getByHash(keyHash) {
      const r = await keyByHash(keyHash);
      return r && toApiKey(r);
    },
    get: (id) => firstOf(db.selectFrom('apiKeys').selectAll().where('id', '=', id), toApiKey),
    list: (projectId) => rowsOf(db.selectFrom('apiKeys').selectAll().where('projectId', '=', projectId).orderBy('creationTime'), toApiKey),
    delete: (id) => deletedRow(db.deleteFrom('apiKeys').where('id', '=', id)),
  };
}
