// Update a user (PATCH /users/{id}, answered 204 as MODE does): name, email, password; a project key
// also canCreateDevices. id, projectId, creationTime and verified are read-only (docs/concepts.md#devices
// rule: the same value is ignored). docs/concepts.md#accounts: a user changing its password gives
// `currentPassword` unless its session is under 10 minutes old (it just signed in); a new password
// ends every other session of the user (revoked on the bus): whoever knew the old one is signed out.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { AppError } from '../errors.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { userFor } from './access.js';
import { PatchUserBodySchema, type User } from './schemas.js';
import { userView } from './view.js';
import { endSessions } from './sessions.js';

/** docs/concepts.md#accounts: a session this young may change its password without the current one */
export const FRESH_SESSION_MS = 10 * 60_000;

export async function updateUser({
  deps,
  caller,
  input: { userId, body },
}: VerbArgs<Pick<Deps, 'bus' | 'clock'> & StoreOf<'sessions' | 'users'>, { userId: number } & Body>): Promise<User> {
  const u = await userFor(deps, caller, userId, true);
  const b = parseInput(PatchUserBodySchema, body);
  const current = userView(u);
  const readOnly = ['id', 'projectId', 'creationTime', 'verified', ...(caller.type === 'user' ? ['canCreateDevices'] : [])];
  checkReadOnly(b, current, readOnly);

  const patch: { name?: string; email?: string; passwordHash?: string; canCreateDevices?: boolean } = {};
  if (b.name !== undefined) patch.name = b.name;
  if (b.email !== undefined && b.email !== u.email) {
    if (await deps.store.users.getByEmail(u.projectId, b.email)) throw new AppError('ALREADY_EXISTS', { fields: ['email'] });
    patch.email = b.email;
  }
  if (b.password !== undefined) {
    if (caller.type === 'user') await checkCurrentPassword(deps, caller.tokenHash, u.passwordHash, b.currentPassword);
    patch.passwordHash = await hashPassword(b.password);
  }
  if (caller.type === 'project key' && b.canCreateDevices !== undefined) patch.canCreateDevices = b.canCreateDevices;
  await deps.store.users.update(u.id, patch);
  if (patch.passwordHash) await endSessions(deps, u.id, caller.type === 'user' ? caller.tokenHash : undefined);
  return userView({ ...u, ...patch });
}

/**
 * A stolen token alone must not be enough to take the account: the current password, unless the
 * session was opened in the last 10 minutes. A currentPassword given is always checked.
 */
async function checkCurrentPassword(
  deps: Pick<Deps, 'clock'> & StoreOf<'sessions'>,
  tokenHash: string,
  passwordHash: string,
  currentPassword: string | undefined,
): Promise<void> {
  const refuse = (message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path: 'currentPassword', message }] });
  if (currentPassword !== undefined) {
    if (!(await verifyPassword(currentPassword, passwordHash))) throw refuse('currentPassword is not the current password');
    return;
  }
  const s = await deps.store.sessions.getByHash(tokenHash);
  const age = s ? deps.clock.now().getTime() - Date.parse(s.creationTime) : Infinity;
  if (!(age < FRESH_SESSION_MS))
    throw refuse('currentPassword is required to change the password: this session is more than 10 minutes old (or sign in again first)');
}
