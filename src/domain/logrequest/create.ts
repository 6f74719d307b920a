// requestDeviceLogs (docs/api.md#device-operations, docs/concepts.md#log-requests): a new request with a fresh upload token, announced to
// the device through its KV store. One open request (requested or uploading) per device.
import type { LogRequestRow } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { hashToken } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { CreateLogRequestSchema } from './schemas.js';
import { announceKey, keyValueOf, setKeyIn } from './kv-key.js';
import type { Body, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import type { LogDeps } from './limits.js';

/** upload tokens travel in a URL path: base64url only, with a readable prefix */
export const newUploadToken = (deps: Pick<LogDeps, 'random'>) => `lr.${deps.random.id(32)}`;

export async function requestDeviceLogs({
  deps,
  caller,
  input: { deviceId, body },
}: VerbArgs<LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'members' | 'transaction'>, DeviceRef & Body>): Promise<{
  request: LogRequestRow;
  token: string;
}> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  const parsed = parseInput(CreateLogRequestSchema, body);
  if (parsed.start && parsed.end && parsed.start > parsed.end) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'start', message: 'start must not be after end' }] });
  }
  const now = deps.clock.now().toISOString();
  const token = newUploadToken(deps);
  const request: LogRequestRow = {
    id: deps.random.id(12),
    projectId: device.projectId,
    deviceId: device.id,
    status: 'requested',
    tokenHash: hashToken(token),
    start: parsed.start ?? null,
    end: parsed.end ?? null,
    prefixes: parsed.prefixes ?? null,
    creationTime: now,
    uploadId: null,
    uploadSize: null,
    numParts: null,
    partSize: null,
    uploadExpires: null,
    filename: null,
    contentType: null,
    finishTime: null,
    error: null,
  };
  const value = keyValueOf(request, token);
  const rev = await deps.store.transaction(async (tx) => {
    // the unique open-request slot of the device decides, not a read before the write
    if (!(await tx.logRequests.create(request))) return undefined;
    return setKeyIn(tx, deps, device.id, value, now);
  });
  if (rev === undefined) {
    const open = await deps.store.logRequests.openFor(device.id);
    throw new AppError('BLOCKING_LOG_REQUEST', { deviceId, requestId: open?.id, status: open?.status });
  }
  await announceKey(deps, device, rev, value);
  await writeLog({
    deps,
    input: { projectId: device.projectId, caller, level: 'info', source: 'api', text: `log request ${request.id} sent to device ${device.id}` },
  });
  return { request, token };
}
