// PUT /deviceLogger/{token}/uploads/{uploadId}/parts/{n} (docs/concepts.md#log-requests): the raw bytes of one part.
// Parts may arrive in any order and be sent again; each must have exactly its size (partSize,
// the last one the remainder), checked from Content-Length before reading and again on the
// bytes themselves, never buffering more than one part's size.
import type { StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { BlobTooLargeError } from '../../ports/blob-store.js';
import { requestForToken, requireSession } from './token.js';
import { partKey, partSizeOf, type LogDeps } from './limits.js';

const wrongSize = (n: number, expected: number, got: number | string) =>
  new AppError('INVALID_PARAMETERS', { issues: [{ path: 'body', message: `part ${n} must be ${expected} bytes, got ${got}` }], part: n, expected });

export async function putPart({
  deps,
  input: { token, uploadId, partNumber, body, declaredLength },
}: SystemArgs<
  LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>,
  { token: string; uploadId: string; partNumber: string; body: AsyncIterable<Uint8Array> | null; declaredLength: number | undefined }
>): Promise<void> {
  const r = await requestForToken(deps, token);
  requireSession(r, uploadId);
  const n = /^[1-9]\d{0,5}$/.test(partNumber) ? Number(partNumber) : 0;
  if (n < 1 || n > r.numParts) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'part', message: `part must be 1 to ${r.numParts}` }] });
  }
  const expected = partSizeOf(n, r.uploadSize, r.partSize);
  if (declaredLength !== undefined && declaredLength !== expected) throw wrongSize(n, expected, declaredLength);
  const blobs = deps.blobs;
  const key = partKey(r.id, uploadId, n);
  let size: number;
  try {
    ({ size } = await blobs.put(key, body ?? new Uint8Array(0), { maxBytes: expected }));
  } catch (e) {
    if (e instanceof BlobTooLargeError) throw wrongSize(n, expected, 'more');
    throw e;
  }
  if (size !== expected) {
    await blobs.delete(key);
    throw wrongSize(n, expected, size);
  }
  // activity keeps the session alive; a session that ended meanwhile keeps no part
  const ttl = deps.logUploads.uploadTtlSeconds;
  const expires = new Date(deps.clock.now().getTime() + ttl * 1000).toISOString();
  if (!(await deps.store.logRequests.transition(r.id, ['uploading'], { uploadExpires: expires }, uploadId))) {
    await blobs.delete(key);
    throw new AppError('INVALID_TOKEN');
  }
}
