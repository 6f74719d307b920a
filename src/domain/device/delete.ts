// deleteDevice (docs/api.md#device-operations, docs/concepts.md#devices). A project key deletes the device: its record, its KV store,
// and (bus `revoke`) its live connections on every node. A home member only takes it out of the
// home. docs/api.md#device-operations rule 7: a device in use by another part of the system is 409 DEVICE_IN_USE; each
// such part has a check in `deps.deviceDeletion.blockers` (log requests: an upload in progress), and
// each that keeps records of its own about a device a cleanup in `cleanups` (commands, rollouts, log
// requests, certificates), listed where Deps is built (src/roles/deps.ts).
import type { Deps, DeviceRef, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { writeLog } from '../log/write.js';

// the whole Store, not StoreOf: the deps go on to the hooks, with needs this file does not know
export async function deleteDevice({
  deps,
  caller,
  input: { deviceId },
}: VerbArgs<Pick<Deps, 'store' | 'bus' | 'clock' | 'blobs' | 'deviceDeletion'>, DeviceRef>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  if (caller.type !== 'project key') {
    await deps.store.devices.update(d.id, { homeId: null });
    await writeLog({ deps, input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `device ${d.id} removed from home ${d.homeId}` } });
    return;
  }
  for (const check of deps.deviceDeletion.blockers) await check(deps, d);
  await deps.store.transaction(async (store) => {
    await store.kv.drop('device', d.id);
    await store.devices.delete(d.id);
  });
  await deps.bus.publish('revoke', { kind: 'device', deviceId: d.id });
  await writeLog({ deps, input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `device ${d.id} deleted` } });
  // a failing cleanup is logged and does not undo the deletion
  for (const cleanup of deps.deviceDeletion.cleanups) {
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
