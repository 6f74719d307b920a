// Rows as the wire shows them: no hashes, no null optional fields (docs/api.md#conventions).
import type { ApiKeyRow, DeviceClassRow } from '../../ports/store.js';
import type { ApiKey, DeviceClass } from './schemas.js';

export const apiKeyView = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  projectId: k.projectId,
  name: k.name,
  scopes: k.scopes,
  creationTime: k.creationTime,
});

export function deviceClassView(c: DeviceClassRow): DeviceClass {
  const out: DeviceClass = { id: c.id, projectId: c.projectId, creationTime: c.creationTime };
  if (c.name !== null) out.name = c.name;
  if (c.description !== null) out.description = c.description;
  if (c.certificateRequired) out.certificateRequired = true;
  return out;
}
