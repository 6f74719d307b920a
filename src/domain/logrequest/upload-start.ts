// POST /deviceLogger/{token} (docs/concepts.md#log-requests): the device announces the file it will send and gets an
// upload session: how many parts, of what size, and where to PUT each. The request becomes
// `uploading`. Starting again replaces an unfinished session (a device that restarted).
import type { Body, StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { StartUploadSchema } from './schemas.js';
import { requestForToken } from './token.js';
import { partsFolder, partsOf, type LogDeps } from './limits.js';

export interface UploadSession {
  uploadId: string;
  numOfParts: number;
  partSize: number;
  urls: string[];
}

export async function startUpload({
  deps,
  input: { token, body, baseUrl },
}: SystemArgs<LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>, Body & { token: string; baseUrl: string }>): Promise<UploadSession> {
  const r = await requestForToken(deps, token);
  const parsed = parseInput(StartUploadSchema, body);
  const limits = deps.logUploads;
  if (parsed.size > limits.maxFileBytes) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'size', message: `a log file is at most ${limits.maxFileBytes} bytes` }] });
  }
  const blobs = deps.blobs;
  const now = deps.clock.now();
  const uploadId = deps.random.id(12);
  const numParts = partsOf(parsed.size, limits.partBytes);
  const started = await deps.store.logRequests.transition(r.id, ['requested', 'uploading'], {
    status: 'uploading',
    uploadId,
    uploadSize: parsed.size,
    numParts,
    partSize: limits.partBytes,
    uploadExpires: new Date(now.getTime() + limits.uploadTtlSeconds * 1000).toISOString(),
    filename: parsed.filename ?? null,
    contentType: parsed.contentType,
  });
  if (!started) throw new AppError('INVALID_TOKEN');
  // the parts of a session this one replaces are of no use any more
  if (r.uploadId) await blobs.deleteTree(`${partsFolder(r.id)}/${r.uploadId}`);
  const base = `${baseUrl}/deviceLogger/${encodeURIComponent(token)}/uploads/${uploadId}/parts`;
  return { uploadId, numOfParts: numParts, partSize: limits.partBytes, urls: Array.from({ length: numParts }, (_, i) => `${base}/${i + 1}`) };
}
