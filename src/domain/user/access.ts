// Who may see a user: a project key with the `users` scope, or the user itself. Anyone else is
// told the user does not exist (docs/api.md#credentials).
import type { StoreOf } from '../deps.js';
import type { UserRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { Caller } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';

export async function userFor(deps: StoreOf<'users'>, caller: Caller, userId: number, allowSelf: boolean): Promise<UserRow> {
  requireCaller(caller);
  const u = await deps.store.users.get(userId);
  if (!u || u.projectId !== caller.projectId) throw new AppError('USER_NOT_FOUND', { userId });
  if (caller.type === 'user') {
    if (caller.userId !== u.id) throw new AppError('USER_NOT_FOUND', { userId });
    if (!allowSelf) throw new AppError('PERMISSION_DENIED', { required: 'project key with scope users' });
    return u;
  }
  requireProjectKey(caller, u.projectId, 'users');
  return u;
}
