// A deleted device leaves the rollouts that targeted it (docs/firmware.md#rollouts): their counts
// no longer include it. Registered with the registry's device deletion like the outbox's.
import type { StoreOf } from '../deps.js';
import { deviceCleanups } from '../device/delete.js';

export function removeDeviceRollouts(deps: StoreOf<'rollouts'>, deviceId: number): Promise<number> {
  return deps.store.rollouts.deleteForDevice(deviceId);
}

deviceCleanups.push(async (deps, device) => {
  await removeDeviceRollouts(deps, device.id);
});
