// List, get and delete data sources, and read the records a `store` source keeps (docs/concepts.md#data-sources).
import type { ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import type { DataSource, RecordsQuery } from './schemas.js';
import { requireDataManager, sourceFor, type SourceRef } from './access.js';
import { toDataSource } from './view.js';
import type { DataDeps } from './source-create.js';

export async function listDataSources({ deps, caller, input: { projectId } }: VerbArgs<DataDeps & StoreOf<'dataSources'>, ProjectRef>): Promise<DataSource[]> {
  requireDataManager(caller, projectId);
  return (await deps.store.dataSources.list(projectId)).map((s) => toDataSource(s, deps.sealer));
}

export async function getDataSource({ deps, caller, input: { projectId, id } }: VerbArgs<DataDeps & StoreOf<'dataSources'>, SourceRef>): Promise<DataSource> {
  return toDataSource(await sourceFor(deps, caller, projectId, id), deps.sealer);
}

/** the source and the records it kept; batches still queued for a webhook source are dropped by the worker */
export async function deleteDataSource({
  deps,
  caller,
  input: { projectId, id },
}: VerbArgs<DataDeps & StoreOf<'dataSources' | 'logs' | 'transaction'>, SourceRef>): Promise<void> {
  const s = await sourceFor(deps, caller, projectId, id);
  await deps.store.transaction(async (tx) => {
    await tx.dataSources.delete(projectId, s.id);
    await tx.dataRecords.deleteForSource(projectId, s.id);
  });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'data', text: `data source ${id} deleted` } });
}

export interface DataRecordView {
  deviceId: number;
  timestamp: string;
  data: Record<string, unknown>;
}

export async function listDataRecords({
  deps,
  caller,
  input: { projectId, id, query, page },
}: VerbArgs<DataDeps & StoreOf<'dataRecords' | 'dataSources'>, SourceRef & { query: RecordsQuery; page: Page }>): Promise<Paged<DataRecordView>> {
  const s = await sourceFor(deps, caller, projectId, id);
  if (s.type !== 'store') throw new AppError('NOT_FOUND', { dataSourceId: id, message: 'a webhook source keeps no records' });
  const r = await deps.store.dataRecords.list({ projectId, sourceId: s.id, deviceId: query.deviceId, since: query.since, until: query.until }, page);
  return { total: r.total, items: r.items.map(({ deviceId, timestamp, data }) => ({ deviceId, timestamp, data })) };
}
