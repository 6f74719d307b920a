// Stream tickets (docs/api.md#stream-tickets): one row per ticket, deleted when taken. Taking is one
// DELETE ... RETURNING, so of two nodes redeeming the same ticket at once exactly one gets it.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StreamTicketRepo, StreamTicketRow } from '../../ports/store.js';

export type StreamTicketsTable = StreamTicketRow;
type Db = Kysely<Database & { streamTickets: StreamTicketsTable }>;

export function streamTicketRepo(base: Kysely<Database>): StreamTicketRepo {
  const db = base as unknown as Db;
  return {
    async create(t, now) {
      // tickets nobody redeemed are removed by the next issue: the table holds seconds of them
      await db.deleteFrom('streamTickets').where('expirationTime', '<=', now).execute();
      await db.insertInto('streamTickets').values(t).execute();
    },
    async take(ticketHash, now) {
      const r = await db.deleteFrom('streamTickets').where('ticketHash', '=', ticketHash).returningAll().executeTakeFirst();
      return r && r.expirationTime > now ? r : undefined;
    },
  };
}
