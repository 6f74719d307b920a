// Reading modules: a project's (project key, keys masked) and a home's (docs/webhooks.md: the modules of
// the home's project; a home member sees their ids and descriptions only, not targets or keys).
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import type { ModuleRow, Page, Paged } from '../../ports/store.js';
import { homeFor } from '../auth/access.js';
import { idOrNotFound } from '../id.js';
import { moduleFor, requireModuleManager, type ModuleRef } from './access.js';
import { moduleView } from './view.js';
import type { Module } from './schemas.js';
import type { ModuleDeps } from './create.js';

export type ModuleBrief = { id: string; moduleType: ModuleRow['moduleType']; description?: string };

export async function getModule({ deps, caller, input: { projectId, moduleId } }: VerbArgs<ModuleDeps & StoreOf<'modules'>, ModuleRef>): Promise<Module> {
  return moduleView(await moduleFor(deps, caller, projectId, moduleId), deps.sealer);
}

const pageOf = <T>(all: T[], page: Page): Paged<T> => ({ total: all.length, items: all.slice(page.skip, page.skip + page.limit) });

export async function listModules({
  deps,
  caller,
  input: { projectId, page },
}: VerbArgs<ModuleDeps & StoreOf<'modules'>, { projectId: number; page: Page }>): Promise<Paged<Module>> {
  requireModuleManager(caller, projectId);
  const rows = await deps.store.modules.list(projectId);
  return pageOf(
    rows.map((r) => moduleView(r, deps.sealer)),
    page,
  );
}

export async function listHomeModules({
  deps,
  caller,
  input: { homeIdRaw, page },
}: VerbArgs<Pick<Deps, 'sealer'> & StoreOf<'homes' | 'members' | 'modules'>, { homeIdRaw: string; page: Page }>): Promise<Paged<Module | ModuleBrief>> {
  const home = await homeFor(deps, caller, idOrNotFound(homeIdRaw, 'HOME_NOT_FOUND', 'homeId'), ['project key', 'member'], 'modules');
  const rows = await deps.store.modules.list(home.projectId);
  const items =
    caller.type === 'project key'
      ? rows.map((r) => moduleView(r, deps.sealer))
      : rows.map((r): ModuleBrief =>
          r.description !== null ? { id: r.id, moduleType: r.moduleType, description: r.description } : { id: r.id, moduleType: r.moduleType },
        );
  return pageOf(items, page);
}
