// Read users: one (a project key with `users`, or the user itself) or a page of a project's
// users (project key with `users`), optionally by a case-insensitive substring of email or name.
import type { StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged } from '../../ports/store.js';
import { requireProjectKey } from '../auth/access.js';
import { listProjectId } from '../project/access.js';
import { userFor } from './access.js';
import type { User } from './schemas.js';
import { userView } from './view.js';

export async function getUser({ deps, caller, input: { userId } }: VerbArgs<StoreOf<'users'>, { userId: number }>): Promise<User> {
  return userView(await userFor(deps, caller, userId, true));
}

export async function listUsers({
  deps,
  caller,
  input: { filter, page },
}: VerbArgs<StoreOf<'users'>, { filter: { projectId?: number; search?: string }; page: Page }>): Promise<Paged<User>> {
  const projectId = listProjectId(caller, filter.projectId);
  requireProjectKey(caller, projectId, 'users');
  const r = await deps.store.users.list({ projectId, search: filter.search || undefined }, page);
  return { total: r.total, items: r.items.map(userView) };
}
