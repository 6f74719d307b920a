// Who may act on a project's own resources (keys, classes). A caller of another project is told
// the project does not exist (docs/api.md#credentials: never reveal another project's objects).
import type { StoreOf } from '../deps.js';
import type { Page, ProjectRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { Caller, Scope } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';

/** the caller's project, if it is `projectId`; PROJECT_NOT_FOUND otherwise */
export async function ownProject(deps: StoreOf<'projects'>, caller: Caller, projectId: number): Promise<ProjectRow> {
  requireCaller(caller);
  if (caller.projectId !== projectId) throw new AppError('PROJECT_NOT_FOUND', { projectId });
  const p = await deps.store.projects.get(projectId);
  if (!p) throw new AppError('PROJECT_NOT_FOUND', { projectId });
  return p;
}

/** a project key of that project holding `scope` (or admin) */
export async function projectKeyFor(deps: StoreOf<'projects'>, caller: Caller, projectId: number, scope: Scope): Promise<ProjectRow> {
  const p = await ownProject(deps, caller, projectId);
  requireProjectKey(caller, projectId, scope);
  return p;
}

/** what a list verb takes: the filter its query parsed to (listProjectId checks its projectId), and the page */
export type ListInput<F extends { projectId?: number }> = { filter: F; page: Page };

/**
 * The project a list is about: a `projectId` filter must name the caller's own project (else
 * PERMISSION_DENIED: list operations have no 404, and the answer is the same whether the other
 * project exists or not).
 */
export function listProjectId(caller: Caller, asked: number | undefined): number {
  requireCaller(caller);
  if (asked !== undefined && asked !== caller.projectId) throw new AppError('PERMISSION_DENIED', { projectId: asked });
  return caller.projectId;
}
