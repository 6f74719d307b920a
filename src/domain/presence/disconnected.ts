// A device connection closed, for whatever reason (clean, error, keep-alive, takeover,
// revocation): when it was the device's last live connection anywhere, isConnected goes false,
// lastDisconnectTime is stamped and `_deviceDisconnected_ {transport}` is emitted (docs/devices.md#mqtt).
import type { SystemArgs } from '../deps.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import type { PresenceDeps, PresenceDevice, Transport } from './connected.js';

/** returns true when this connection was the device's last one */
export async function deviceDisconnected({
  deps,
  input: { device, connectionId, transport },
}: SystemArgs<PresenceDeps, { device: PresenceDevice; connectionId: string; transport: Transport }>): Promise<boolean> {
  if (!(await deps.presence.disconnected(device.id, connectionId))) return false;
  const now = deps.clock.now();
  // a deleted device has no row left to update; its event still tells watchers it went away.
  // isConnected and the event are committed together (group-commit.ts)
  const fresh = (await deps.store.devices.get(device.id)) ?? device;
  await emitEvent(deps, {
    projectId: device.projectId,
    event: deviceSystemEvent(fresh, '_deviceDisconnected_', { transport }, now),
    presence: { id: device.id, connected: false, time: now.toISOString() },
  });
  return true;
}
