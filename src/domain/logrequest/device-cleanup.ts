// The registry's device deletion (src/domain/device/delete.ts) asks every area whether the
// device is in use and lets each clean up after it (Deps.deviceDeletion, listed in src/roles/deps.ts).
// Log requests: a device whose upload is in progress cannot be deleted (docs/concepts.md#devices: 409
// DEVICE_IN_USE); a deleted device's requests and files go with it.
import { AppError } from '../errors.js';
import type { StoreOf } from '../deps.js';
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
  for (const r of rows) await deps.blobs.deleteTree(requestFolder(r.id));
  return deps.store.logRequests.deleteForDevice(deviceId);
}
