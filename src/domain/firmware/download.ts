// GET /bundles/{bundleId}/components/{componentName}/file (docs/firmware.md#downloading): the
// bytes of a component's file, for a project key or a device of the bundle's class, with its
// sha256 as the ETag. `If-None-Match` with that ETag: not modified. One `Range` (`bytes=a-b`,
// `bytes=a-`, `bytes=-n`): those bytes only (206), so an interrupted download resumes; a range
// outside the file is RANGE_NOT_SATISFIABLE; several ranges are answered with the whole file.
// A device's request moves it to `downloading` in the open rollouts of this bundle.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import type { FirmwareFileRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { trackDownload, type RolloutTrackDeps } from '../rollout/track.js';
import { componentOf, fileBundleFor } from './access.js';

export type FileDownload =
  | { notModified: true; file: FirmwareFileRow }
  | { notModified: false; file: FirmwareFileRow; stream: AsyncIterable<Uint8Array>; range?: { start: number; end: number } };

/** the ETag of a file: its sha256, quoted */
export const etagOf = (f: Pick<FirmwareFileRow, 'sha256'>) => `"${f.sha256}"`;

/** whether an If-None-Match header names this ETag (or is `*`); weak tags compare equal */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * The range asked for, within a file of `size` bytes: undefined for the whole file (no header,
 * another unit, or several ranges); RANGE_NOT_SATISFIABLE for a malformed or outside one.
 */
export function rangeOf(header: string | undefined, size: number): { start: number; end: number } | undefined {
  if (!header) return undefined;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return undefined;
  const spec = m[1]!.trim();
  if (spec.includes(',')) return undefined;
  const refuse = (message: string) => new AppError('RANGE_NOT_SATISFIABLE', { size, range: header.slice(0, 100), message });
  const r = /^(\d{0,15})-(\d{0,15})$/.exec(spec);
  if (!r || (r[1] === '' && r[2] === '')) throw refuse('expected one range: bytes=<first>-<last>, bytes=<first>- or bytes=-<suffix length>');
  let start: number;
  let end: number;
  if (r[1] === '') {
    const n = Number(r[2]);
    if (n === 0 || size === 0) throw refuse(`a suffix range of ${n} bytes of a ${size}-byte file is empty`);
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(r[1]);
    end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
    if (r[2] !== '' && Number(r[2]) < start) throw refuse('the last byte of the range comes before its first');
    if (start >= size) throw refuse(`the file has ${size} bytes; the range starts at byte ${start}`);
  }
  return { start, end };
}

export async function openFirmwareFile({
  deps,
  caller,
  input: { bundleId, componentName, range, ifNoneMatch },
}: VerbArgs<
  Pick<Deps, 'blobs'> & RolloutTrackDeps & StoreOf<'bundles' | 'devices' | 'firmwareFiles'>,
  { bundleId: string; componentName: string; range?: string; ifNoneMatch?: string }
>): Promise<FileDownload> {
  const { bundle, device } = await fileBundleFor(deps, caller, bundleId, false);
  componentOf(bundle, componentName);
  const file = await deps.store.firmwareFiles.get(bundle.id, componentName);
  if (!file) throw new AppError('NOT_FOUND', { bundleId, componentName, message: `component ${JSON.stringify(componentName)} has no file stored by Hearth` });
  // docs/firmware.md#rollouts: the device's first file request
  if (device) await trackDownload(deps, device.id, bundle.id);
  if (matches(ifNoneMatch, etagOf(file))) return { notModified: true, file };
  const wanted = rangeOf(range, file.size);
  const opened = await deps.blobs.open(file.blobKey, wanted);
  if (!opened) throw new AppError('NOT_FOUND', { bundleId, componentName, message: 'the file is missing from storage' });
  return { notModified: false, file, stream: opened.stream, range: wanted };
}
