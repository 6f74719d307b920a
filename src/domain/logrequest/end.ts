// The end of a request, whichever way it ends (completed, failed, abandoned, cancelled, or its
// device deleted): one conditional status change and the removal of its KV key in one
// transaction, then the device is told. The caller removes files.
import type { LogRequestPatch, LogRequestRow, LogRequestStatus } from '../../ports/store.js';
import type { EmitDeps, StoreOf } from '../deps.js';
import { announceKey, clearKeyIn } from './kv-key.js';

export async function endRequest(
  deps: EmitDeps & StoreOf<'devices' | 'transaction'>,
  request: Pick<LogRequestRow, 'id' | 'deviceId'>,
  from: readonly LogRequestStatus[],
  patch: LogRequestPatch & { status: LogRequestStatus },
  uploadId?: string,
): Promise<LogRequestRow | undefined> {
  const done = await deps.store.transaction(async (tx) => {
    const ended = await tx.logRequests.transition(request.id, from, patch, uploadId);
    if (!ended) return undefined;
    const rev = await clearKeyIn(tx, request.deviceId, request.id);
    return { ended, rev };
  });
  if (!done) return undefined;
  if (done.rev !== undefined) {
    const device = await deps.store.devices.get(request.deviceId);
    if (device) await announceKey(deps, device, done.rev);
  }
  return done.ended;
}
