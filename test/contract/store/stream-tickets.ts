// Store contract: stream tickets (docs/api.md#stream-tickets), taken once even by concurrent takers,
// never after their expiration, and swept away by later issues.
import { describe, expect, it } from 'vitest';
import type { StreamTicketRow } from '../../../src/ports/store.js';
import { at, freshStore, unique, type MakeStore } from './fixtures.js';

const ticket = (over: Partial<StreamTicketRow> = {}): StreamTicketRow => ({
  ticketHash: unique('ticket'),
  credentialKind: 'ut.',
  credentialHash: unique('cred'),
  expirationTime: at(10),
  ...over,
});

export function streamTicketsContract(make: MakeStore): void {
  describe('streamTickets', () => {
    it('takes a ticket once', async () => {
      const store = await freshStore(make);
      const t = ticket();
      await store.streamTickets.create(t, at(0));
      expect(await store.streamTickets.take(t.ticketHash, at(1))).toEqual(t);
      expect(await store.streamTickets.take(t.ticketHash, at(2))).toBeUndefined();
    });

    it('refuses a ticket at or after its expiration, and an unknown one', async () => {
      const store = await freshStore(make);
      const edge = ticket();
      await store.streamTickets.create(edge, at(0));
      expect(await store.streamTickets.take(edge.ticketHash, at(10))).toBeUndefined();
      expect(await store.streamTickets.take('unknown', at(0))).toBeUndefined();
    });

    it('an issue sweeps expired tickets away (a later take finds nothing even with an earlier clock)', async () => {
      const store = await freshStore(make);
      const old = ticket({ expirationTime: at(5) });
      await store.streamTickets.create(old, at(0));
      await store.streamTickets.create(ticket({ expirationTime: at(30) }), at(20));
      expect(await store.streamTickets.take(old.ticketHash, at(1))).toBeUndefined();
    });

    it('lets exactly one of 20 concurrent takers win', async () => {
      const store = await freshStore(make);
      const t = ticket();
      await store.streamTickets.create(t, at(0));
      const got = await Promise.all(Array.from({ length: 20 }, () => store.streamTickets.take(t.ticketHash, at(1))));
      expect(got.filter((r) => r !== undefined)).toHaveLength(1);
    });
  });
}
