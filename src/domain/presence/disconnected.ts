// A device connection closed, for whatever reason (clean, error, keep-alive, takeover,
// revocation): when it was the device's last live connection anywhere, isConnected goes false,
// lastDisconnectTime is stamped and `_deviceDisconnected_ {transport}` is emitted (docs/devices.md#mqtt).
import type { SystemArgs } from '../deps.js';
import { emitFlip, type PresenceChange, type PresenceDeps } from './connected.js';

/** returns true when this connection was the device's last one */
export async function deviceDisconnected({ deps, input: { device, connectionId, transport } }: SystemArgs<PresenceDeps, PresenceChange>): Promise<boolean> {
  if (!(await deps.presence.disconnected(device.id, connectionId))) return false;
  // a deleted device has no row left to update; its event still tells watchers it went away
  const fresh = (await deps.store.devices.get(device.id)) ?? device;
  await emitFlip(deps, device, fresh, false, transport);
  return true;
}
