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

/** one connection of a device opened or closed */
export type PresenceChange = { device: PresenceDevice; connectionId: string; transport: Transport };

/** returns true when this connection made the device connected */
export async function deviceConnected({ deps, input: { device, connectionId, transport } }: SystemArgs<PresenceDeps, PresenceChange>): Promise<boolean> {
  if (!(await deps.presence.connected(device.id, connectionId))) return false;
  // the device was resolved a moment ago, at CONNECT: its home is current
  await emitFlip(deps, device, device, true, transport);
  return true;
}

/**
 * The flip of isConnected and the `_deviceConnected_`/`_deviceDisconnected_` event that reports it,
 * committed together with the other connects and disconnects of this moment (group-commit.ts).
 * `seen` is the device as the event describes it (its current home).
 */
export function emitFlip(deps: PresenceDeps, device: PresenceDevice, seen: PresenceDevice, connected: boolean, transport: Transport): Promise<string> {
  const now = deps.clock.now();
  const event = deviceSystemEvent(seen, connected ? '_deviceConnected_' : '_deviceDisconnected_', { transport }, deps.ids.timestamp(now));
  // the flip's time is the event's (one ISO string, not two: a storm makes one per connect)
  return emitEvent(deps, { projectId: device.projectId, event, presence: { id: device.id, connected, time: event.timestamp }, now });
}
