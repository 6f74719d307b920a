// Software bundles (ports/store/bundles.ts); the components are JSON text.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { BundleRepo, BundleRow } from '../../ports/store.js';

type Db = Kysely<Database>;

export function bundleRepo(db: Db): BundleRepo {
  return {
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
  };
}
