// Update a user (PATCH /users/{id}): name, email, password; a project key also canCreateDevices.
// id, projectId and creationTime are read-only (docs/concepts.md#devices rule: the same value is ignored).
// A new password ends every other session of the user (revoked on the bus): whoever knew the
// old one is signed out.
import type { Deps, StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { AppError } from '../errors.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { userFor } from './access.js';
import { PatchUserBodySchema, type User } from './schemas.js';
import { userView } from './view.js';

export async function updateUser({
  deps,
  caller,
  input: { userId, body },
}: {
  deps: Pick<Deps, 'bus'> & StoreOf<'sessions' | 'users'>;
  caller: Caller;
  input: { userId: number; body: unknown };
}): Promise<User> {
  const u = await userFor(deps, caller, userId, true);
  const b = parseInput(PatchUserBodySchema, body);
  const current = userView(u);
  const readOnly = ['id', 'projectId', 'creationTime', ...(caller.type === 'user' ? ['canCreateDevices'] : [])];
  checkReadOnly(b, current, readOnly);

  const patch: { name?: string; email?: string; passwordHash?: string; canCreateDevices?: boolean } = {};
  if (b.name !== undefined) patch.name = b.name;
  if (b.email !== undefined && b.email !== u.email) {
    if (await deps.store.users.getByEmail(u.projectId, b.email)) throw new AppError('ALREADY_EXISTS', { fields: ['email'] });
    patch.email = b.email;
  }
  if (b.password !== undefined) {
    if (caller.type === 'user' && !(b.currentPassword !== undefined && (await verifyPassword(b.currentPassword, u.passwordHash)))) {
      throw new AppError('PERMISSION_DENIED', { message: 'changing your password needs the right currentPassword' });
    }
    patch.passwordHash = await hashPassword(b.password);
  }
  if (caller.type === 'project key' && b.canCreateDevices !== undefined) patch.canCreateDevices = b.canCreateDevices;
  await deps.store.users.update(u.id, patch);
  if (patch.passwordHash) await endOtherSessions(deps, u.id, caller.type === 'user' ? caller.tokenHash : undefined);
  return userView({ ...u, ...patch });
}

async function endOtherSessions(deps: Pick<Deps, 'bus'> & StoreOf<'sessions'>, userId: number, keep: string | undefined): Promise<void> {
  for (const s of await deps.store.sessions.listForUser(userId)) {
    if (s.tokenHash === keep) continue;
    await deps.store.sessions.delete(s.tokenHash);
    await deps.bus.publish('revoke', { kind: 'session', tokenHash: s.tokenHash });
  }
}
