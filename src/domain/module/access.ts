// Who may manage a project's modules: a project key of that project with scope `modules` (or
// `admin`). Another project's modules are reported as not existing (docs/api.md#credentials).
import type { StoreOf } from '../deps.js';
import type { Caller } from '../caller.js';
import type { ModuleRow } from '../../ports/store.js';
import { requireProjectManager } from '../auth/access.js';
import { AppError } from '../errors.js';
import { idOrNotFound } from '../id.js';
import { MODULE_ID_PATTERN } from './schemas.js';

/** the module a verb is about */
export type ModuleRef = { projectId: number; moduleId: string };

/** a path id: a positive integer, else the project does not exist */
export function parseProjectId(raw: string): number {
  return idOrNotFound(raw, 'PROJECT_NOT_FOUND', 'projectId');
}

export function requireModuleManager(caller: Caller, projectId: number): void {
  requireProjectManager(caller, projectId, 'modules');
}

/** loads a module of the project, or MODULE_NOT_FOUND (a malformed id cannot exist) */
export async function loadModule(deps: StoreOf<'modules'>, projectId: number, moduleId: string): Promise<ModuleRow> {
  const m = MODULE_ID_PATTERN.test(moduleId) ? await deps.store.modules.get(projectId, moduleId) : undefined;
  if (!m) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  return m;
}

/** a module the caller manages: requireModuleManager, then loadModule */
export async function moduleFor(deps: StoreOf<'modules'>, caller: Caller, projectId: number, moduleId: string): Promise<ModuleRow> {
  requireModuleManager(caller, projectId);
  return loadModule(deps, projectId, moduleId);
}
