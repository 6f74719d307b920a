// A resolved key-value store: the device's own or a home's. Routes and the broker resolve access
// first (deviceFor / homeFor), then hand the target to the verbs.
import type { DeviceRow, HomeRow, KvScope } from '../../ports/store.js';

export type KvTarget =
  | { scope: 'device'; projectId: number; ownerId: number; device: Pick<DeviceRow, 'id' | 'deviceClass' | 'homeId'> }
  | { scope: 'home'; projectId: number; ownerId: number };

export const deviceStore = (d: Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>): KvTarget => ({
  scope: 'device',
  projectId: d.projectId,
  ownerId: d.id,
  device: { id: d.id, deviceClass: d.deviceClass, homeId: d.homeId },
});

export const homeStore = (h: Pick<HomeRow, 'id' | 'projectId'>): KvTarget => ({ scope: 'home', projectId: h.projectId, ownerId: h.id });

export const scopeOf = (t: KvTarget): KvScope => t.scope;
