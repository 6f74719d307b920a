// deleteDeviceLogRequest (docs/api.md#device-operations rule 8, docs/concepts.md#log-requests): a `requested` request is cancelled and
// removed; an `uploading` one is in use (409 REQUEST_IN_USE); a finished one is removed with
// its file.
import type { StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { getLogRequest } from './read.js';
import { endRequest } from './end.js';
import { requestFolder, type LogDeps } from './limits.js';

export async function deleteLogRequest({
  deps,
  caller,
  input: { deviceId, requestId },
}: VerbArgs<LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'members' | 'transaction'>, { deviceId: number; requestId: string }>): Promise<void> {
  const r = await getLogRequest({ deps, caller, input: { deviceId, requestId } });
  if (r.status === 'uploading') throw new AppError('REQUEST_IN_USE', { requestId, status: r.status });
  if (r.status === 'requested') {
    const now = deps.clock.now().toISOString();
    // the conditional change loses to an upload that started meanwhile
    const cancelled = await endRequest(deps, r, ['requested'], { status: 'cancelled', finishTime: now });
    if (!cancelled) throw new AppError('REQUEST_IN_USE', { requestId });
  }
  // a request that never got an upload has no files (and needs no file storage)
  await deps.blobs.deleteTree(requestFolder(r.id));
  await deps.store.logRequests.delete(r.id);
  await writeLog({
    deps,
    input: {
      projectId: r.projectId,
      caller,
      level: 'info',
      source: 'api',
      text: `log request ${r.id} of device ${r.deviceId} deleted (${r.status})`,
    },
  });
}
