// The registry's device deletion (src/domain/device/delete.ts) asks every feature whether the
// device is in use and lets each clean up after it. Log requests: a device whose upload is in
// progress cannot be deleted (docs/concepts.md#devices: 409 DEVICE_IN_USE); a deleted device's requests and
// files go with it.
import { AppError } from '../errors.js';
import { deviceBlockers, deviceCleanups } from '../device/delete.js';
import type { Deps, StoreOf } from '../deps.js';
import { requestFolder, type LogDeps } from './limits.js';

export async function refuseWhileUploading(deps: Pick<LogDeps, 'clock'> & StoreOf<'logRequests'>, deviceId: number): Promise<void> {
  const open = await deps.store.logRequests.openFor(deviceId);
  if (open?.status !== 'uploading') return;
  // an abandoned upload does not hold the device
  if (open.uploadExpires !== null && open.uploadExpires < deps.clock.now().toISOString()) return;
  throw new AppError('DEVICE_IN_USE', { deviceId, requestId: open.id, message: 'a log upload from the device is in progress' });
}

export async function removeDeviceLogRequests(deps: Pick<LogDeps, 'blobs'> & StoreOf<'logRequests'>, deviceId: number): Promise<number> {
  const rows = await deps.store.logRequests.listForDevice(deviceId);
  for (const r of rows) await deps.blobs?.deleteTree(requestFolder(r.id));
  return deps.store.logRequests.deleteForDevice(deviceId);
}

// registered once, when the feature is loaded (the routes import it). The registry hands its
// hooks the deps it was given: the API's, which carry the blob store when the process has one.
deviceBlockers.push((deps, device) => refuseWhileUploading(deps, device.id));
deviceCleanups.push(async (deps, device) => {
  await removeDeviceLogRequests({ store: deps.store, blobs: (deps as Partial<Pick<Deps, 'blobs'>>).blobs }, device.id);
});
