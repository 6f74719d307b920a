// Who manages a project's data sources and reads their records: a project key of that project
// with scope `data` (or `admin`). Another project's sources are reported as not existing.
import type { Caller } from '../caller.js';
import type { DataSourceRow } from '../../ports/store.js';
import type { StoreOf } from '../deps.js';
import { requireProjectManager } from '../auth/access.js';
import { AppError } from '../errors.js';
import { DATA_SOURCE_ID } from './schemas.js';

/** the data source a verb is about */
export type SourceRef = { projectId: number; id: string };

export function requireDataManager(caller: Caller, projectId: number): void {
  requireProjectManager(caller, projectId, 'data');
}

export async function loadSource(deps: StoreOf<'dataSources'>, projectId: number, id: string): Promise<DataSourceRow> {
  const s = DATA_SOURCE_ID.test(id) ? await deps.store.dataSources.get(projectId, id) : undefined;
  if (!s) throw new AppError('NOT_FOUND', { dataSourceId: id });
  return s;
}

/** a data source the caller manages: requireDataManager, then loadSource */
export async function sourceFor(deps: StoreOf<'dataSources'>, caller: Caller, projectId: number, id: string): Promise<DataSourceRow> {
  requireDataManager(caller, projectId);
  return loadSource(deps, projectId, id);
}

/** docs/concepts.md#data-sources: a source whose `deviceClasses` filter is empty takes every class */
export const takesClass = (s: Pick<DataSourceRow, 'deviceClasses'>, deviceClass: string): boolean =>
  !s.deviceClasses || s.deviceClasses.length === 0 || s.deviceClasses.includes(deviceClass);
