// Delete a bundle (project key with `devices`). Devices that installed it keep `bundleInstalled`
// (it records what they run); their config schemas become [] (getDeviceConfigurationSchemas).
// A bundle a running or paused rollout brings is INVALID_STATE (docs/firmware.md#rollouts: abort
// the rollout first); its stored files go with it.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { writeLog } from '../log/write.js';
import { bundleFor } from './access.js';
import { AppError } from '../errors.js';
import { firmwareFolder } from '../firmware/upload.js';

export async function deleteBundle({
  deps,
  caller,
  input: { bundleId },
}: VerbArgs<Pick<Deps, 'clock' | 'blobs'> & StoreOf<'bundles' | 'devices' | 'logs' | 'rollouts' | 'firmwareFiles'>, { bundleId: string }>): Promise<void> {
  const b = await bundleFor(deps, caller, bundleId, true);
  if (await deps.store.rollouts.activeForBundle(b.id)) {
    throw new AppError('INVALID_STATE', { bundleId: b.id, message: 'a running or paused rollout brings this bundle; abort it first' });
  }
  await deps.store.bundles.delete(b.id);
  await deps.store.firmwareFiles.deleteForBundle(b.id);
  await deps.blobs.deleteTree(firmwareFolder(b.id));
  await writeLog({ deps, input: { projectId: b.projectId, caller, level: 'info', source: 'api', text: `bundle ${b.id} deleted` } });
}
