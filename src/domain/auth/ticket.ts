// Stream tickets (docs/api.md#stream-tickets): a browser cannot set headers on a WebSocket, and a
// credential in its URL may be written to a proxy's log. It trades its credential, in a header, for a
// ticket: random, single use, valid seconds, and standing for that credential only. Redeeming it on a
// WebSocket upgrade resolves the credential again (a key revoked or a session ended since refuses it),
// and the socket then acts as that credential, closing when it ends, as with the credential itself.
import * as v from 'valibot';
import type { Deps, StoreOf, VerbArgs, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import type { Caller } from '../caller.js';
import { requireCaller } from './access.js';
import { callerOfCredential } from './resolve.js';
import { hashToken } from './tokens.js';
import { TimeSchema } from '../validate.js';

/** docs/api.md#stream-tickets: the default lifetime of a ticket */
export const STREAM_TICKET_TTL_SECONDS = 10;

export const StreamTicketSchema = v.object({
  ticket: v.pipe(v.string(), v.description('pass as `?ticket=` when opening a WebSocket; single use')),
  expirationTime: TimeSchema,
});
export type StreamTicket = v.InferOutput<typeof StreamTicketSchema>;

type D = Pick<Deps, 'clock' | 'random' | 'streamTicketTtlSeconds'> & StoreOf<'streamTickets'>;

/** `token`: the credential the caller presented (already resolved to `caller`); the ticket stands for it */
export async function issueStreamTicket({ deps, caller, input }: VerbArgs<D, { token: string | undefined }>): Promise<StreamTicket> {
  requireCaller(caller);
  const token = input.token;
  if (!token) throw new AppError('AUTHORIZATION_REQUIRED');
  const kind = token.slice(0, 3);
  // a ticket stands for a key, a session or a device key, never for another ticket
  if (kind !== 'pk.' && kind !== 'ut.' && kind !== 'dk.') throw new AppError('PERMISSION_DENIED', { required: 'a project key, a user token or a device key' });
  const ticket = deps.random.token('wt.');
  const now = deps.clock.now();
  const expirationTime = new Date(now.getTime() + deps.streamTicketTtlSeconds * 1000).toISOString();
  await deps.store.streamTickets.create(
    { ticketHash: hashToken(ticket), credentialKind: kind, credentialHash: hashToken(token), expirationTime },
    now.toISOString(),
  );
  return { ticket, expirationTime };
}

/** the caller a ticket stands for; the ticket is used up. Unknown, used or expired: INVALID_TOKEN */
export async function redeemStreamTicket({
  deps,
  input,
}: SystemArgs<
  Pick<Deps, 'clock'> & StoreOf<'streamTickets' | 'apiKeys' | 'devices' | 'sessions' | 'users'>,
  { ticket: string; ip?: string }
>): Promise<Caller> {
  if (!input.ticket.startsWith('wt.')) throw new AppError('INVALID_TOKEN');
  const row = await deps.store.streamTickets.take(hashToken(input.ticket), deps.clock.now().toISOString());
  if (!row) throw new AppError('INVALID_TOKEN');
  return callerOfCredential({ deps, input: { kind: row.credentialKind, hash: row.credentialHash, ip: input.ip } });
}
