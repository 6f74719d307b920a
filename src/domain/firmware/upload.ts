// PUT /bundles/{bundleId}/components/{componentName}/file (docs/firmware.md#files): the raw bytes,
// streamed into the blob store with their sha256 computed on the way, never held whole in
// memory. A body past `limits.firmwareFileBytes` (declared or counted) is BODY_TOO_LARGE and an
// upload cut short keeps nothing (the blob store writes a temporary file and renames it only when
// complete). The new file is recorded, and the component's `url` and `checksum` set, in one
// transaction; the file it replaces is removed after.
import { createHash } from 'node:crypto';
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { BlobTooLargeError } from '../../ports/blob-store.js';
import { AppError } from '../errors.js';

import { writeLog } from '../log/write.js';
import { componentOf, fileBundleFor, fileUrl } from './access.js';
import type { FirmwareFile } from './schemas.js';

/** hashes what passes through */
async function* hashing(source: AsyncIterable<Uint8Array>, hash: ReturnType<typeof createHash>): AsyncIterable<Uint8Array> {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

async function* nothing(): AsyncIterable<Uint8Array> {}

/** the blob folder of a bundle's files: bundle ids are slugs, a valid blob key segment */
export const firmwareFolder = (bundleId: string) => `firmware/${bundleId}`;

export async function uploadFirmwareFile({
  deps,
  caller,
  input: { bundleId, componentName, body, declaredLength, baseUrl },
}: VerbArgs<
  Pick<Deps, 'clock' | 'blobs' | 'limits' | 'random'> & StoreOf<'bundles' | 'devices' | 'firmwareFiles' | 'logs'>,
  { bundleId: string; componentName: string; body: AsyncIterable<Uint8Array> | null; declaredLength: number | undefined; baseUrl: string }
>): Promise<FirmwareFile> {
  const { bundle } = await fileBundleFor(deps, caller, bundleId, true);
  componentOf(bundle, componentName);
  const limit = deps.limits.firmwareFileBytes;
  if (declaredLength !== undefined && declaredLength > limit) throw new AppError('BODY_TOO_LARGE', { limit });
  const blobs = deps.blobs;
  const key = `${firmwareFolder(bundle.id)}/${deps.random.id(12)}`;
  const hash = createHash('sha256');
  let size: number;
  try {
    ({ size } = await blobs.put(key, hashing(body ?? nothing(), hash), { maxBytes: limit }));
  } catch (e) {
    if (e instanceof BlobTooLargeError) throw new AppError('BODY_TOO_LARGE', { limit });
    throw e;
  }
  const sha256 = hash.digest('hex');
  const url = fileUrl(baseUrl, bundle.id, componentName);
  const row = { bundleId: bundle.id, componentName, size, sha256, blobKey: key, creationTime: deps.clock.now().toISOString() };
  const put = await deps.store.firmwareFiles.put(row, { url, checksum: `sha256:${sha256}` }).catch(async (e: unknown) => {
    await blobs.delete(key);
    throw e;
  });
  if (!put) {
    // the bundle was deleted while its bytes came in
    await blobs.delete(key);
    throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
  }
  if (put.replaced) await blobs.delete(put.replaced.blobKey);
  await writeLog({
    deps,
    input: { projectId: bundle.projectId, caller, level: 'info', source: 'api', text: `firmware file of ${bundle.id}/${componentName} stored (${size} bytes)` },
  });
  return { componentName, size, sha256, url };
}
