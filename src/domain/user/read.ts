// Read users: one (a project key with `users`, or the user itself) or a page of a project's
// users (project key with `users`), optionally by a case-insensitive substring of email or name.
import type { StoreOf, VerbArgs } from '../deps.js';
import type { Paged } from '../../ports/store.js';
import { requireProjectKey } from '../auth/access.js';
import { listProjectId, type ListInput } from '../project/access.js';
import { userFor } from './access.js';
import type { User, UserListFilter } from './schemas.js';
import { userView } from './view.js';

export async function getUser({ deps, caller, input: { userId } }: VerbArgs<StoreOf<'users'>, { userId: number }>): Promise<User> {
  return userView(await userFor(deps, caller, userId, true));
}

export async function listUsers({ deps, caller, input: { filter, page } }: VerbArgs<StoreOf<'users'>, ListInput<UserListFilter>>): Promise<Paged<User>> {
  const projectId = listProjectId(caller, filter.projectId);
  requireProjectKey(caller, projectId, 'users');
  const r = await deps.store.users.list({ projectId, search: filter.search || undefined }, page);
  return { total: r.total, items: r.items.map(userView) };
}
