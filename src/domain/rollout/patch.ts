// PATCH /projects/{projectId}/rollouts/{rolloutId} {state} (docs/firmware.md#rollouts): pause,
// resume or abort by hand. A finished rollout (completed, aborted) is INVALID_STATE; asking for
// the state it is in changes nothing. Resuming makes the failure threshold judge only the results
// that come after (else the failures that paused it would pause it again at once). Aborting
// cancels the rollout's notification commands still queued or sent; devices keep their states.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { FINISHED_ROLLOUT, type RolloutRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { rolloutFor } from './access.js';
import { PatchRolloutSchema, type Rollout } from './schemas.js';
import { rolloutView } from './view.js';
import { rolloutChanged } from './track.js';
import { cancelWaiting, type CancelDeps } from './cancel-commands.js';

export async function patchRollout({
  deps,
  caller,
  input: { projectId, rolloutId, body },
}: VerbArgs<Pick<Deps, 'clock'> & CancelDeps & StoreOf<'projects' | 'rollouts' | 'logs'>, { projectId: number; rolloutId: string } & Body>): Promise<Rollout> {
  const r = await rolloutFor(deps, caller, projectId, rolloutId);
  const { state } = parseInput(PatchRolloutSchema, body);
  const finished = (x: RolloutRow) => new AppError('INVALID_STATE', { rolloutId, state: x.state, message: `the rollout is ${x.state}` });
  if (FINISHED_ROLLOUT.includes(r.state)) throw finished(r);
  const now = deps.clock.now().toISOString();
  let updated: RolloutRow | undefined;
  if (state === r.state) updated = r;
  else if (state === 'paused') updated = await deps.store.rollouts.update(r.id, ['running'], { state: 'paused' }, now);
  else if (state === 'running') {
    const counts = (await deps.store.rollouts.counts([r.id])).get(r.id)!;
    updated = await deps.store.rollouts.update(r.id, ['paused'], { state: 'running', baseInstalled: counts.installed, baseFailed: counts.failed }, now);
  } else updated = await deps.store.rollouts.update(r.id, ['running', 'paused'], { state: 'aborted' }, now);
  if (!updated) {
    // another request, or the worker, changed it meanwhile
    const current = (await deps.store.rollouts.get(r.id)) ?? r;
    if (FINISHED_ROLLOUT.includes(current.state)) throw finished(current);
    throw new AppError('INVALID_STATE', { rolloutId, state: current.state, message: `the rollout became ${current.state} meanwhile; read it and try again` });
  }
  if (updated !== r) {
    let cancelled = 0;
    if (state === 'aborted') {
      for (const c of await deps.store.rollouts.openCommands(r.id)) if (await cancelWaiting(deps, c.deviceId, c.commandId)) cancelled++;
    }
    const text = `rollout ${r.id} ${state === 'running' ? 'resumed' : state}${state === 'aborted' ? ` (${cancelled} waiting commands cancelled)` : ''}`;
    await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text } });
    await rolloutChanged(deps, r.id);
  }
  const latest = (await deps.store.rollouts.get(r.id)) ?? updated;
  return rolloutView(latest, (await deps.store.rollouts.counts([r.id])).get(r.id)!);
}
