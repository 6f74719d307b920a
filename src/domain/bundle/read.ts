// Read bundles: a project key (`devices`) sees its project's, filtered by class and channel; a
// device sees those of its own class and channel whatever filters it sends.
import type { StoreOf, VerbArgs } from '../deps.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { listProjectId } from '../project/access.js';
import { bundleFor, callingDevice, fitsDevice } from './access.js';
import type { Bundle } from './schemas.js';
import { bundleView } from './view.js';

export async function getBundle({ deps, caller, input: { bundleId } }: VerbArgs<StoreOf<'bundles' | 'devices'>, { bundleId: string }>): Promise<Bundle> {
  return bundleView(await bundleFor(deps, caller, bundleId, false));
}

export async function listBundles({
  deps,
  caller,
  input: { filter },
}: VerbArgs<StoreOf<'bundles' | 'devices'>, { filter: { projectId?: number; deviceClass?: string; channel?: string } }>): Promise<Bundle[]> {
  requireCaller(caller);
  const projectId = listProjectId(caller, filter.projectId);
  if (caller.type === 'device') {
    const d = await callingDevice(deps, caller);
    const rows = await deps.store.bundles.list({ projectId, deviceClass: d.deviceClass });
    return rows.filter((b) => fitsDevice(b, d)).map(bundleView);
  }
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'a project key or a device' });
  requireProjectKey(caller, projectId, 'devices');
  return (await deps.store.bundles.list({ projectId, deviceClass: filter.deviceClass, channel: filter.channel })).map(bundleView);
}
