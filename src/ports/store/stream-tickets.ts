// Stream tickets (docs/api.md#stream-tickets): short-lived, single-use stand-ins for a credential, for
// browsers opening a WebSocket (a URL may be logged by a proxy; the ticket is worth nothing once used
// or a few seconds old). The row names the credential by its kind and hash, never the credential.

export interface StreamTicketRow {
  ticketHash: string;
  /** the prefix of the credential the ticket stands for: 'pk.', 'ut.' or 'dk.' */
  credentialKind: string;
  /** the SHA-256 of that credential, as its own table keeps it */
  credentialHash: string;
  expirationTime: string;
}

export interface StreamTicketRepo {
  /** stores the ticket; tickets expired at `now` are deleted on the way */
  create(t: StreamTicketRow, now: string): Promise<void>;
  /** deletes the ticket and returns it if it was unexpired at `now`: of concurrent takers (any node), one gets it */
  take(ticketHash: string, now: string): Promise<StreamTicketRow | undefined>;
}
