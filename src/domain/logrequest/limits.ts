// What the log request verbs need beyond the Store: the blob store and the upload limits
// (docs/api.md#limits: a log file of at most 100 MiB, sent in parts of 5 MiB), and where things live in
// the blob store.
import type { Deps, EmitDeps } from '../deps.js';

/** all but the Store, of which each verb names the repositories it uses (StoreOf) */
export type LogDeps = EmitDeps & Pick<Deps, 'random' | 'limits' | 'blobs' | 'logUploads'>;

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
