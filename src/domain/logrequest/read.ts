// getDeviceLogRequests, getDeviceLogRequest (docs/api.md#device-operations) and the download of a stored log file
// (docs/concepts.md#log-requests `url`). A request is found only through a device the caller may see.
import type { LogRequestRow, Page, Paged } from '../../ports/store.js';
import type { StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { fileKey, type LogDeps } from './limits.js';

export async function listLogRequests({
  deps,
  caller,
  input: { deviceId, page },
}: VerbArgs<StoreOf<'devices' | 'logRequests' | 'members'>, { deviceId: number; page: Page }>): Promise<Paged<LogRequestRow>> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  return deps.store.logRequests.list(device.id, page);
}

/** the request, if it belongs to a device the caller may see; else REQUEST_NOT_FOUND */
export async function getLogRequest({
  deps,
  caller,
  input: { deviceId, requestId },
}: VerbArgs<StoreOf<'devices' | 'logRequests' | 'members'>, { deviceId: number; requestId: string }>): Promise<LogRequestRow> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  const r = await deps.store.logRequests.get(requestId);
  if (!r || r.deviceId !== device.id) throw new AppError('REQUEST_NOT_FOUND', { requestId });
  return r;
}

export interface LogFile {
  size: number;
  contentType: string;
  filename: string;
  stream: AsyncIterable<Uint8Array>;
}

export async function openLogFile({
  deps,
  caller,
  input: { deviceId, requestId },
}: VerbArgs<Pick<LogDeps, 'blobs'> & StoreOf<'devices' | 'logRequests' | 'members'>, { deviceId: number; requestId: string }>): Promise<LogFile> {
  const r = await getLogRequest({ deps, caller, input: { deviceId, requestId } });
  if (r.status !== 'success') throw new AppError('NOT_FOUND', { requestId, message: `the request is ${r.status}: no file is stored` });
  const blob = await deps.blobs.open(fileKey(r.id));
  if (!blob) throw new AppError('NOT_FOUND', { requestId, message: 'the file is gone' });
  return {
    size: blob.size,
    contentType: r.contentType ?? 'application/octet-stream',
    filename: r.filename ?? `${r.id}.log`,
    stream: blob.stream,
  };
}
