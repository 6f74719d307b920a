// The device behind a connection, as publishes need it: resolved at CONNECT, then re-read from
// the store when the copy is older than a second. A device publishing hundreds of events a second
// costs one read a second, not one per event, and an event still carries the device's home
// within a second of a change (a device deleted meanwhile is cut off by revocation anyway).
import { AppError } from '../../src/domain/errors.js';
import type { PresenceDevice } from '../../src/domain/presence/index.js';
import type { BrokerContext } from '../context.js';
import type { DeviceSession } from '../session.js';

export const DEVICE_REREAD_MS = 1000;

/** the connection's copy of its device when it is recent enough, else undefined (then: currentDevice) */
export function deviceIfFresh(s: DeviceSession): PresenceDevice | undefined {
  return Date.now() - s.deviceReadAt < DEVICE_REREAD_MS ? s.device : undefined;
}

export async function currentDevice(ctx: BrokerContext, s: DeviceSession): Promise<PresenceDevice> {
  const fresh = deviceIfFresh(s);
  if (fresh) return fresh;
  const now = Date.now();
  const d = await ctx.deps.store.devices.get(s.device.id);
  if (!d) throw new AppError('DEVICE_NOT_FOUND', { deviceId: s.device.id });
  s.device = { id: d.id, projectId: d.projectId, deviceClass: d.deviceClass, homeId: d.homeId };
  s.deviceReadAt = now;
  return s.device;
}
