// Devices whose live connections a broker node wrote back into shared presence after it had lost
// them (cluster mode: Redis restarted empty, or the node was reaped after a long pause). The
// connections never closed, so a device the reaper marked offline meanwhile is connected again,
// with `_deviceConnected_`; one that was never marked offline changes nothing.
import type { SystemArgs } from '../deps.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import type { PresenceDeps } from './connected.js';

export async function devicesRestored({ deps, input: { deviceIds } }: SystemArgs<PresenceDeps, { deviceIds: number[] }>): Promise<void> {
  for (const id of deviceIds) {
    const device = await deps.store.devices.get(id);
    if (!device || device.isConnected) continue;
    if ((await deps.presence.count(id)) === 0) continue; // closed again meanwhile
    const now = deps.clock.now();
    await deps.store.devices.setConnected(id, true, now.toISOString());
    await emitEvent(deps, {
      projectId: device.projectId,
      event: deviceSystemEvent(device, '_deviceConnected_', { transport: 'unknown', reason: 'presence restored' }, deps.ids.timestamp(now)),
    });
  }
}
