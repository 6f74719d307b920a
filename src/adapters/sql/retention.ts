// Retention of the bounded histories (docs/concepts.md events history, docs/operations.md#logs access and general logs): one
// short delete of at most `limit` rows per call, oldest first, so the caller can pace the work
// and the API keeps the database between batches (SQLite has one writer).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { PrunableHistory, RetentionRepo } from '../../ports/store.js';

type Db = Kysely<Database>;

export function retentionRepo(db: Db): RetentionRepo {
  return {
    async prune(history: PrunableHistory, before, limit) {
      let n: bigint;
      if (history === 'events') {
        const ids = db.selectFrom('events').select('id').where('timestamp', '<', before).orderBy('timestamp').limit(limit);
        n = (await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst()).numDeletedRows;
      } else {
        const ids = db.selectFrom(history).select('id').where('timestamp', '<', before).orderBy('timestamp').limit(limit);
        n = (await db.deleteFrom(history).where('id', 'in', ids).executeTakeFirst()).numDeletedRows;
      }
      return Number(n);
    },
  };
}
