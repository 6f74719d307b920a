// A data source as answered (docs/concepts.md#data-sources). The signing key of a webhook source is shown in full in
// the answer that made it, masked in every other one (like module keys, docs/webhooks.md).
import type { DataSourceRow } from '../../ports/store.js';
import type { Sealer } from '../crypto/sealer.js';
import { maskKey } from '../module/view.js';
import type { DataSource } from './schemas.js';

export function toDataSource(r: DataSourceRow, sealer: Sealer, revealKey = false): DataSource {
  const out: DataSource = { id: r.id, projectId: r.projectId, name: r.name, type: r.type, creationTime: r.creationTime, modificationTime: r.modificationTime };
  if (r.deviceClasses) out.deviceClasses = r.deviceClasses;
  if (r.url) out.url = r.url;
  if (r.keySealed) {
    const key = sealer.unseal(r.keySealed);
    out.key = revealKey ? key : maskKey(key);
  }
  if (r.retentionDays !== null) out.retentionDays = r.retentionDays;
  if (r.failingSince) out.health = { failingSince: r.failingSince, lastError: r.lastError ?? '' };
  return out;
}
