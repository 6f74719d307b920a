// Read homes: one (a project key with `homes`, or a member) or a page. A project key lists its
// project's homes, optionally those of one user; a user lists its own homes.
import type { HomeRef, StoreOf, VerbArgs } from '../deps.js';
import type { Paged } from '../../ports/store.js';
import { homeFor, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { listProjectId, type ListInput } from '../project/access.js';
import type { Home, HomeListFilter } from './schemas.js';
import { homeView } from './view.js';

export async function getHome({ deps, caller, input: { homeId } }: VerbArgs<StoreOf<'homes' | 'members'>, HomeRef>): Promise<Home> {
  return homeView(await homeFor(deps, caller, homeId, ['project key', 'member']));
}

export async function listHomes({ deps, caller, input: { filter, page } }: VerbArgs<StoreOf<'homes'>, ListInput<HomeListFilter>>): Promise<Paged<Home>> {
  const projectId = listProjectId(caller, filter.projectId);
  if (caller.type === 'user') {
    if (filter.userId !== undefined && filter.userId !== caller.userId) throw new AppError('PERMISSION_DENIED', { message: 'a user lists its own homes' });
  } else requireProjectKey(caller, projectId, 'homes');
  const userId = caller.type === 'user' ? caller.userId : filter.userId;
  const r = await deps.store.homes.list({ projectId, userId }, page);
  return { total: r.total, items: r.items.map(homeView) };
}
