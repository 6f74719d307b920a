// deleteDevice (docs/api.md#device-operations, docs/concepts.md#devices). A project key deletes the device: its record, its KV store,
// and (bus `revoke`) its live connections on every node. A home member only takes it out of the
// home. docs/api.md#device-operations rule 7: a device in use by another part of the system is 409 DEVICE_IN_USE; each
// such part registers a check in `deviceBlockers` (the log-request feature: an upload in progress).
import type { Deps, DeviceRef, VerbArgs } from '../deps.js';
import type { DeviceRow } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { writeLog } from '../log/write.js';

/** throws AppError('DEVICE_IN_USE', ...) when the device must not be deleted now */
export type DeviceBlocker = (deps: Pick<Deps, 'store' | 'clock'>, device: DeviceRow) => Promise<void>;
export const deviceBlockers: DeviceBlocker[] = [];

/**
 * Runs after a device is deleted, for features that keep records of their own about it (log
 * requests and their files). A failing cleanup is logged and does not undo the deletion.
 */
export type DeviceCleanup = (deps: Pick<Deps, 'store' | 'clock'>, device: DeviceRow) => Promise<void>;
export const deviceCleanups: DeviceCleanup[] = [];

// the whole Store, not StoreOf: the deps go on to the hooks above, which other features register
// with needs this file does not know
export async function deleteDevice({ deps, caller, input: { deviceId } }: VerbArgs<Pick<Deps, 'store' | 'bus' | 'clock'>, DeviceRef>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  if (caller.type !== 'project key') {
    await deps.store.devices.update(d.id, { homeId: null });
    await writeLog({ deps, input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `device ${d.id} removed from home ${d.homeId}` } });
    return;
  }
  for (const check of deviceBlockers) await check(deps, d);
  await deps.store.transaction(async (store) => {
    await store.kv.drop('device', d.id);
    await store.devices.delete(d.id);
  });
  await deps.bus.publish('revoke', { kind: 'device', deviceId: d.id });
  await writeLog({ deps, input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `device ${d.id} deleted` } });
  for (const cleanup of deviceCleanups) {
    try {
      await cleanup(deps, d);
    } catch (err) {
      await writeLog({
        deps,
        input: {
          projectId: d.projectId,
          level: 'warn',
          source: 'api',
          text: `cleanup after deleting device ${d.id} failed: ${(err as Error).message}`,
        },
      });
    }
  }
}
