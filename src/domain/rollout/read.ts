// Read rollouts (docs/firmware.md#rollouts): the project's, newest first; one; and its devices,
// by state, in device id order.
import type { StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged } from '../../ports/store.js';
import { parseInput } from '../validate.js';
import { projectKeyFor } from '../project/access.js';
import { rolloutFor } from './access.js';
import { RolloutDevicesQuerySchema, type Rollout, type RolloutDevice } from './schemas.js';
import { rolloutDeviceView, rolloutView } from './view.js';

type ReadDeps = StoreOf<'projects' | 'rollouts'>;

export async function getRollout({
  deps,
  caller,
  input: { projectId, rolloutId },
}: VerbArgs<ReadDeps, { projectId: number; rolloutId: string }>): Promise<Rollout> {
  const r = await rolloutFor(deps, caller, projectId, rolloutId);
  return rolloutView(r, (await deps.store.rollouts.counts([r.id])).get(r.id)!);
}

export async function listRollouts({
  deps,
  caller,
  input: { projectId, page },
}: VerbArgs<ReadDeps, { projectId: number; page: Page }>): Promise<Paged<Rollout>> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  const { items, total } = await deps.store.rollouts.list(projectId, page);
  const counts = await deps.store.rollouts.counts(items.map((r) => r.id));
  return { total, items: items.map((r) => rolloutView(r, counts.get(r.id)!)) };
}

export async function listRolloutDevices({
  deps,
  caller,
  input: { projectId, rolloutId, query, page },
}: VerbArgs<ReadDeps, { projectId: number; rolloutId: string; query: unknown; page: Page }>): Promise<Paged<RolloutDevice>> {
  const r = await rolloutFor(deps, caller, projectId, rolloutId);
  const q = parseInput(RolloutDevicesQuerySchema, query);
  const { items, total } = await deps.store.rollouts.devices(r.id, q.state ? [q.state] : undefined, page);
  return { total, items: items.map(rolloutDeviceView) };
}
