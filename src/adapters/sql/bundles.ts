// Software bundles (ports/store/bundles.ts); the components are JSON text.
import type { Kysely, Selectable } from 'kysely';
import type { BundlesTable, Database } from './schema.js';
import type { BundleRepo, BundleRow } from '../../ports/store.js';
import { deletedRow, firstOf, rowsOf } from './util.js';

type Db = Kysely<Database>;

const toBundle = (r: Selectable<BundlesTable>): BundleRow => ({ ...r, components: JSON.parse(r.components) }) as BundleRow;

export function bundleRepo(db: Db): BundleRepo {
  return {
    async create(b) {
      await db
        .insertInto('bundles')
        .values({ ...b, components: JSON.stringify(b.components) })
        .execute();
    },
    get: (id) => firstOf(db.selectFrom('bundles').selectAll().where('id', '=', id), toBundle),
    async list(f) {
      let q = db.selectFrom('bundles').selectAll().where('projectId', '=', f.projectId);
      if (f.deviceClass !== undefined) q = q.where('deviceClass', '=', f.deviceClass);
      if (f.channel !== undefined) q = q.where('channel', '=', f.channel);
      return rowsOf(q.orderBy('creationTime'), toBundle);
    },
    delete: (id) => deletedRow(db.deleteFrom('bundles').where('id', '=', id)),
  };
}
