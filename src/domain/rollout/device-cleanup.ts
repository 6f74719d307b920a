// A deleted device leaves the rollouts that targeted it (docs/firmware.md#rollouts): their counts
// no longer include it. A cleanup of Deps.deviceDeletion (src/roles/deps.ts), like the outbox's.
import type { StoreOf } from '../deps.js';

export function removeDeviceRollouts(deps: StoreOf<'rollouts'>, deviceId: number): Promise<number> {
  return deps.store.rollouts.deleteForDevice(deviceId);
}
