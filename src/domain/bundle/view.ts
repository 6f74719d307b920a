import type { BundleRow } from '../../ports/store.js';
import type { Bundle } from './schemas.js';

export function bundleView(b: BundleRow): Bundle {
  const out: Bundle = { id: b.id, projectId: b.projectId, deviceClass: b.deviceClass, components: b.components, creationTime: b.creationTime };
  if (b.name !== null) out.name = b.name;
  if (b.description !== null) out.description = b.description;
  if (b.channel !== null) out.channel = b.channel;
  return out;
}
