// Create a data source (docs/concepts.md#data-sources). A webhook source gets a signing key (shown in this answer
// only) and its URL passes the target policy of docs/webhooks.md at registration.
import { randomBytes } from 'node:crypto';
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import type { DataSourceRow } from '../../ports/store.js';
import type { WebhookChecks } from '../module/checks.js';
import { sealedNewKey } from '../module/settings.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { CreateDataSourceSchema, MAX_SOURCES_PER_PROJECT, type DataSource } from './schemas.js';
import { requireDataManager } from './access.js';
import { toDataSource } from './view.js';

/** all but the Store, of which each verb names the repositories it uses (StoreOf) */
export type DataDeps = Pick<Deps, 'clock' | 'sealer'>;

const invalid = (path: string, message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path, message }] });

export async function createDataSource({
  deps,
  caller,
  input: { projectId, body },
}: VerbArgs<DataDeps & StoreOf<'dataSources' | 'logs'> & { checks: Pick<WebhookChecks, 'checkUrl'> }, ProjectRef & Body>): Promise<DataSource> {
  const checks = deps.checks;
  requireDataManager(caller, projectId);
  const input = parseInput(CreateDataSourceSchema, body);
  if (input.type === 'webhook') {
    if (!input.url) throw invalid('url', 'a webhook source needs a url');
    if (input.retentionDays != null) throw invalid('retentionDays', 'retentionDays is for store sources');
    await checks.checkUrl(input.url, 'url');
  } else if (input.url) throw invalid('url', 'url is for webhook sources');
  if ((await deps.store.dataSources.list(projectId)).length >= MAX_SOURCES_PER_PROJECT) {
    throw new AppError('LIMIT_EXCEEDED', { limit: MAX_SOURCES_PER_PROJECT, message: `a project has at most ${MAX_SOURCES_PER_PROJECT} data sources` });
  }
  const now = deps.clock.now().toISOString();
  const key = input.type === 'webhook' ? sealedNewKey(deps.sealer) : undefined;
  const row: DataSourceRow = {
    projectId,
    id: input.id ?? `ds-${randomBytes(5).toString('hex')}`,
    name: input.name,
    type: input.type,
    deviceClasses: input.deviceClasses?.length ? [...new Set(input.deviceClasses)] : null,
    url: input.url ?? null,
    keySealed: key?.sealed ?? null,
    retentionDays: input.type === 'store' ? (input.retentionDays ?? null) : null,
    failingSince: null,
    lastFailureTime: null,
    lastError: null,
    creationTime: now,
    modificationTime: now,
  };
  if (!(await deps.store.dataSources.create(row))) throw new AppError('ALREADY_EXISTS', { dataSourceId: row.id });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'data', text: `data source ${row.id} (${row.type}) created` } });
  return toDataSource(row, deps.sealer, true);
}
