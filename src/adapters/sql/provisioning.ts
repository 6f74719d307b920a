// Provisioning tokens (ports/store/provisioning.ts).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { ProvisioningTokenRepo } from '../../ports/store.js';

type Db = Kysely<Database>;

export function provisioningTokenRepo(db: Db): ProvisioningTokenRepo {
  return {
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
  };
}
