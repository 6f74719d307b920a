// What the log request verbs need beyond the Store: the blob store and the upload limits
// (docs/api.md#limits: a log file of at most 100 MiB, sent in parts of 5 MiB), and where things live in
// the blob store.
import type { Deps } from '../deps.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { AppError } from '../errors.js';

export const DEFAULT_UPLOAD_LIMITS = { maxFileBytes: 104_857_600, partBytes: 5_242_880, uploadTtlSeconds: 3600 };
export type UploadLimits = typeof DEFAULT_UPLOAD_LIMITS;

/** all but the Store, of which each verb names the repositories it uses (StoreOf) */
export type LogDeps = Pick<Deps, 'bus' | 'clock' | 'pipeline' | 'limits' | 'blobs' | 'logUploads'>;

export const uploadLimits = (deps: Pick<Deps, 'logUploads'>): UploadLimits => deps.logUploads ?? DEFAULT_UPLOAD_LIMITS;

/** the blob store; a process built without one cannot take uploads (503, not a crash) */
export function blobsOf(deps: Pick<Deps, 'blobs'>): BlobStore {
  if (!deps.blobs) throw new AppError('SERVICE_UNAVAILABLE', { message: 'no file storage configured' });
  return deps.blobs;
}

/** every file of one request lives under this folder */
export const requestFolder = (requestId: string) => `logs/${requestId}`;
/** parts of the current upload session; a new session replaces the whole folder */
export const partsFolder = (requestId: string) => `logs/${requestId}/parts`;
export const partKey = (requestId: string, uploadId: string, n: number) => `logs/${requestId}/parts/${uploadId}/${n}`;
export const fileKey = (requestId: string) => `logs/${requestId}/file`;

/** how many parts a file of `size` bytes takes, and the size of part n (1-based) */
export function partsOf(size: number, partSize: number): number {
  return Math.ceil(size / partSize);
}
export function partSizeOf(n: number, size: number, partSize: number): number {
  const parts = partsOf(size, partSize);
  return n < parts ? partSize : size - partSize * (parts - 1);
}
