// A deleted device's outbox goes with it (docs/concepts.md#command-outbox): the registry's
// device deletion (src/domain/device/delete.ts) runs each feature's cleanup after the deletion.
import type { StoreOf } from '../deps.js';
import { deviceCleanups } from '../device/delete.js';

export function removeDeviceCommands(deps: StoreOf<'commands'>, deviceId: number): Promise<number> {
  return deps.store.commands.deleteForDevice(deviceId);
}

// registered once, when the feature is loaded (the routes import it)
deviceCleanups.push(async (deps, device) => {
  await removeDeviceCommands(deps, device.id);
});
