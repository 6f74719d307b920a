// docs/concepts.md#accounts: a password change or reset ends the user's other sessions at once. Each goes
// from the store and is revoked on the bus, so its token answers 401 on every node and the live
// streams opened with it close (as when the user is deleted, delete.ts).
import type { Deps, StoreOf } from '../deps.js';

/** ends every session of the user except `keep` (a token hash), if given */
export async function endSessions(deps: Pick<Deps, 'bus'> & StoreOf<'sessions'>, userId: number, keep?: string): Promise<number> {
  let ended = 0;
  for (const s of await deps.store.sessions.listForUser(userId)) {
    if (s.tokenHash === keep) continue;
    await deps.store.sessions.delete(s.tokenHash);
    await deps.bus.publish('revoke', { kind: 'session', tokenHash: s.tokenHash });
    ended++;
  }
  return ended;
}
