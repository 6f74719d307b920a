// Devices whose last live connection was held by a broker node that died (cluster mode, Presence
// heartbeats): nobody will report their disconnection, so the reaper does. Each becomes offline
// with `_deviceDisconnected_`; the transport is unknown by then.
import type { SystemArgs } from '../deps.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import type { PresenceDeps } from './connected.js';

export async function devicesOrphaned({ deps, input: { deviceIds } }: SystemArgs<PresenceDeps, { deviceIds: number[] }>): Promise<void> {
  for (const id of deviceIds) {
    // a device that reconnected through another node meanwhile has a live connection again
    if ((await deps.presence.count(id)) > 0) continue;
    const device = await deps.store.devices.get(id);
    if (!device || !device.isConnected) continue;
    const now = deps.clock.now();
    await deps.store.devices.setConnected(id, false, now.toISOString());
    await emitEvent(deps, {
      projectId: device.projectId,
      event: deviceSystemEvent(device, '_deviceDisconnected_', { transport: 'unknown', reason: 'broker node stopped' }, deps.ids.timestamp(now)),
    });
  }
}
