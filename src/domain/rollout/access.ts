// Who acts on rollouts (docs/firmware.md#rollouts): a project key of the project with scope
// `devices`. A rollout of another project, or none, is NOT_FOUND naming the id.
import type { StoreOf } from '../deps.js';
import type { Caller } from '../caller.js';
import type { RolloutRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { projectKeyFor } from '../project/access.js';

export async function rolloutFor(deps: StoreOf<'projects' | 'rollouts'>, caller: Caller, projectId: number, rolloutId: string): Promise<RolloutRow> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  const r = await deps.store.rollouts.get(rolloutId);
  if (!r || r.projectId !== projectId)
    throw new AppError('NOT_FOUND', { rolloutId, message: `no rollout ${JSON.stringify(rolloutId)} in project ${projectId}` });
  return r;
}
