// A device connection opened (docs/concepts.md#devices, docs/devices.md#mqtt): the device's first live connection anywhere flips
// isConnected, stamps lastConnectTime and emits `_deviceConnected_ {transport}`. Further
// connections of an already connected device change nothing a client can see.
import type { EmitDeps, StoreOf, SystemArgs } from '../deps.js';
import type { DeviceRow } from '../../ports/store.js';
import type { Presence } from '../../ports/presence.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';

export type Transport = 'mqtt' | 'websocket';
export type PresenceDevice = Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>;

export interface PresenceDeps extends EmitDeps, StoreOf<'devices'> {
  presence: Presence;
}

/** returns true when this connection made the device connected */
export async function deviceConnected({
  deps,
  input: { device, connectionId, transport },
}: SystemArgs<PresenceDeps, { device: PresenceDevice; connectionId: string; transport: Transport }>): Promise<boolean> {
  if (!(await deps.presence.connected(device.id, connectionId))) return false;
  const now = deps.clock.now();
  // the device was resolved a moment ago, at CONNECT: its home is current. isConnected and the
  // event are committed together, with the other connects of this moment (group-commit.ts)
  await emitEvent(deps, {
    projectId: device.projectId,
    event: deviceSystemEvent(device, '_deviceConnected_', { transport }, now),
    presence: { id: device.id, connected: true, time: now.toISOString() },
  });
  return true;
}
