// A deleted device's outbox goes with it (docs/concepts.md#command-outbox): a cleanup of
// Deps.deviceDeletion (src/roles/deps.ts), run by the registry's device deletion (device/delete.ts).
import type { StoreOf } from '../deps.js';

export function removeDeviceCommands(deps: StoreOf<'commands'>, deviceId: number): Promise<number> {
  return deps.store.commands.deleteForDevice(deviceId);
}
