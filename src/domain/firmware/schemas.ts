// Firmware files of bundle components (docs/firmware.md#files).
import * as v from 'valibot';

/** the answer to an upload */
export const FirmwareFileSchema = v.object({
  componentName: v.string(),
  size: v.number(),
  sha256: v.pipe(v.string(), v.description('lowercase hex; also the ETag of the download')),
  url: v.pipe(v.string(), v.description('where devices download it (GET, with a device or project key)')),
});
export type FirmwareFile = v.InferOutput<typeof FirmwareFileSchema>;
