// POST /deviceLogger/{token}/uploads/{uploadId} (docs/concepts.md#log-requests): every part present with its size,
// assembled in part order into the stored file, whose size must be the announced one. The
// request becomes `success` with its file name, type and url; its KV key goes.
import type { StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { endRequest } from './end.js';
import { requestForToken, requireSession } from './token.js';
import { fileKey, partKey, partSizeOf, partsFolder, type LogDeps } from './limits.js';

export async function completeUpload({
  deps,
  input: { token, uploadId },
}: SystemArgs<LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>, { token: string; uploadId: string }>): Promise<void> {
  const r = await requestForToken(deps, token);
  requireSession(r, uploadId);
  const blobs = deps.blobs;
  const keys = Array.from({ length: r.numParts }, (_, i) => partKey(r.id, uploadId, i + 1));
  const stats = await Promise.all(keys.map((k) => blobs.stat(k)));
  const missing = stats.flatMap((s, i) => (s && s.size === partSizeOf(i + 1, r.uploadSize, r.partSize) ? [] : [i + 1]));
  if (missing.length) {
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: 'parts', message: `parts missing: ${missing.slice(0, 20).join(', ')}` }],
      missingParts: missing,
    });
  }
  const file = fileKey(r.id);
  const { size } = await blobs.concat(file, keys);
  if (size !== r.uploadSize) {
    await blobs.delete(file);
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'size', message: `the parts make ${size} bytes, not ${r.uploadSize}` }] });
  }
  const now = deps.clock.now().toISOString();
  const done = await endRequest(deps, r, ['uploading'], { status: 'success', finishTime: now, uploadExpires: null }, uploadId);
  if (!done) {
    // lost to a concurrent completion (same bytes: keep them) or to a cancellation (drop them)
    if ((await deps.store.logRequests.get(r.id))?.status !== 'success') await blobs.delete(file);
    throw new AppError('INVALID_TOKEN');
  }
  await blobs.deleteTree(partsFolder(r.id));
  await writeLog({
    deps,
    input: { projectId: r.projectId, level: 'info', source: 'api', text: `log request ${r.id} of device ${r.deviceId}: ${size} bytes stored` },
  });
}
