// Delete a bundle (project key with `devices`). Devices that installed it keep `bundleInstalled`
// (it records what they run); their config schemas become [] (getDeviceConfigurationSchemas).
import type { Deps, StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { writeLog } from '../log/write.js';
import { bundleFor } from './access.js';

export async function deleteBundle({
  deps,
  caller,
  input: { bundleId },
}: {
  deps: Pick<Deps, 'clock'> & StoreOf<'bundles' | 'devices' | 'logs'>;
  caller: Caller;
  input: { bundleId: string };
}): Promise<void> {
  const b = await bundleFor(deps, caller, bundleId, true);
  await deps.store.bundles.delete(b.id);
  await writeLog({ deps, input: { projectId: b.projectId, caller, level: 'info', source: 'api', text: `bundle ${b.id} deleted` } });
}
