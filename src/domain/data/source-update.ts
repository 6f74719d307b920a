// Update a data source (docs/concepts.md#data-sources): name, device classes, url (webhook) or retention (store);
// `rotateKey: true` gives a webhook source a new signing key. `id` and `type` are read-only.
import type { Body, StoreOf, VerbArgs } from '../deps.js';
import type { DataSourcePatch } from '../../ports/store.js';
import type { WebhookChecks } from '../module/checks.js';
import { sealedNewKey } from '../module/settings.js';
import { AppError } from '../errors.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { PatchDataSourceSchema, type DataSource } from './schemas.js';
import { loadSource, sourceFor, type SourceRef } from './access.js';
import { toDataSource } from './view.js';
import type { DataDeps } from './source-create.js';

const invalid = (path: string, message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path, message }] });

export async function updateDataSource({
  deps,
  caller,
  input: { projectId, id, body },
}: VerbArgs<DataDeps & StoreOf<'dataSources' | 'logs'> & { checks: Pick<WebhookChecks, 'checkUrl'> }, SourceRef & Body>): Promise<DataSource> {
  const checks = deps.checks;
  const current = await sourceFor(deps, caller, projectId, id);
  const input = parseInput(PatchDataSourceSchema, body);
  checkReadOnly(input, { id: current.id, type: current.type }, ['id', 'type']);
  const patch: DataSourcePatch = { modificationTime: deps.clock.now().toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.deviceClasses !== undefined) patch.deviceClasses = input.deviceClasses?.length ? [...new Set(input.deviceClasses)] : null;
  if (input.url !== undefined) {
    if (current.type !== 'webhook') throw invalid('url', 'url is for webhook sources');
    await checks.checkUrl(input.url, 'url');
    patch.url = input.url;
  }
  if (input.retentionDays !== undefined) {
    if (current.type !== 'store') throw invalid('retentionDays', 'retentionDays is for store sources');
    patch.retentionDays = input.retentionDays;
  }
  let reveal = false;
  if (input.rotateKey) {
    if (current.type !== 'webhook') throw invalid('rotateKey', 'only webhook sources have a key');
    patch.keySealed = sealedNewKey(deps.sealer).sealed;
    reveal = true;
  }
  // a changed target gets a fresh start: its health was the old target's
  if (patch.url !== undefined && patch.url !== current.url) Object.assign(patch, { failingSince: null, lastFailureTime: null, lastError: null });
  await deps.store.dataSources.update(projectId, id, patch);
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'data', text: `data source ${id} updated${reveal ? ' (new key)' : ''}` } });
  return toDataSource(await loadSource(deps, projectId, id), deps.sealer, reveal);
}
