// Delete a user (project key with `users`): its sessions go and are revoked on the bus (live
// event streams close), its memberships go. Homes it owned stay, managed by project keys.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { writeLog } from '../log/write.js';
import { userFor } from './access.js';

export async function deleteUser({
  deps,
  caller,
  input: { userId },
}: VerbArgs<Pick<Deps, 'bus' | 'clock'> & StoreOf<'logs' | 'transaction' | 'users'>, { userId: number }>): Promise<void> {
  const u = await userFor(deps, caller, userId, false);
  const sessions = await deps.store.transaction(async (store) => {
    const s = await store.sessions.listForUser(u.id);
    await store.sessions.deleteForUser(u.id);
    for (const homeId of await store.members.homesOf(u.id)) await store.members.delete(homeId, u.id);
    await store.users.delete(u.id);
    return s;
  });
  for (const s of sessions) await deps.bus.publish('revoke', { kind: 'session', tokenHash: s.tokenHash });
  await writeLog({ deps, input: { projectId: u.projectId, caller, level: 'info', source: 'api', text: `user ${u.id} deleted` } });
}
