// Who may manage a project's modules: a project key of that project with scope `modules` (or
// `admin`). Another project's modules are reported as not existing (docs/api.md#credentials).
import type { StoreOf } from '../deps.js';
import type { Caller } from '../caller.js';
import type { ModuleRow } from '../../ports/store.js';
import { hasScope, requireCaller } from '../auth/access.js';
import { AppError } from '../errors.js';
import { idOrNotFound } from '../id.js';
import { MODULE_ID_PATTERN } from './schemas.js';

/** a path id: a positive integer, else the project does not exist */
export function parseProjectId(raw: string): number {
  return idOrNotFound(raw, 'PROJECT_NOT_FOUND', 'projectId');
}

export function requireModuleManager(caller: Caller, projectId: number): void {
  requireCaller(caller);
  if (caller.projectId !== projectId) throw new AppError('PROJECT_NOT_FOUND', { projectId });
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'project key with scope modules' });
  if (!hasScope(caller, 'modules')) throw new AppError('PERMISSION_DENIED', { required: 'scope modules' });
}

/** loads a module of the project, or MODULE_NOT_FOUND (a malformed id cannot exist) */
export async function loadModule(deps: StoreOf<'modules'>, projectId: number, moduleId: string): Promise<ModuleRow> {
  const m = MODULE_ID_PATTERN.test(moduleId) ? await deps.store.modules.get(projectId, moduleId) : undefined;
  if (!m) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  return m;
}
