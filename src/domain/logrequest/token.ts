// The upload token in the path (docs/concepts.md#log-requests) is the device's only credential for the upload: it is
// looked up by its hash, and it stops working once its request has ended. An upload left without
// a part for longer than its time to live is abandoned here, on first sight, as the periodic
// sweep (expire.ts) would do.
import type { LogRequestRow } from '../../ports/store.js';
import { OPEN_LOG_REQUEST } from '../../ports/store.js';
import { hashToken } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { abandonUpload } from './expire.js';
import type { StoreOf } from '../deps.js';
import type { LogDeps } from './limits.js';

const TOKEN = /^lr\.[A-Za-z0-9_-]{43}$/;

export async function requestForToken(deps: LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>, token: string): Promise<LogRequestRow> {
  // nothing that cannot be a token reaches the store
  if (!TOKEN.test(token)) throw new AppError('INVALID_TOKEN');
  const r = await deps.store.logRequests.getByTokenHash(hashToken(token));
  // an ended request's token is spent: the same answer as an unknown one
  if (!r || !OPEN_LOG_REQUEST.includes(r.status)) throw new AppError('INVALID_TOKEN');
  if (r.status === 'uploading' && r.uploadExpires !== null && r.uploadExpires < deps.clock.now().toISOString()) {
    await abandonUpload(deps, r);
    throw new AppError('INVALID_TOKEN', { message: 'the upload expired' });
  }
  return r;
}

/** the upload session named in the path must be the request's current one */
export function requireSession(
  r: LogRequestRow,
  uploadId: string,
): asserts r is LogRequestRow & { uploadId: string; uploadSize: number; numParts: number; partSize: number } {
  if (r.status !== 'uploading' || r.uploadId !== uploadId || r.uploadSize === null || r.numParts === null || r.partSize === null) {
    throw new AppError('NOT_FOUND', { uploadId, message: 'no such upload session' });
  }
}
