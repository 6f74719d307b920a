// Who manages a project's data sources and reads their records: a project key of that project
// with scope `data` (or `admin`). Another project's sources are reported as not existing.
import type { Caller } from '../caller.js';
import type { DataSourceRow } from '../../ports/store.js';
import type { StoreOf } from '../deps.js';
import { hasScope, requireCaller } from '../auth/access.js';
import { AppError } from '../errors.js';
import { DATA_SOURCE_ID } from './schemas.js';

export function requireDataManager(caller: Caller, projectId: number): void {
  requireCaller(caller);
  if (caller.projectId !== projectId) throw new AppError('PROJECT_NOT_FOUND', { projectId });
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'project key with scope data' });
  if (!hasScope(caller, 'data')) throw new AppError('PERMISSION_DENIED', { required: 'scope data' });
}

export async function loadSource(deps: StoreOf<'dataSources'>, projectId: number, id: string): Promise<DataSourceRow> {
  const s = DATA_SOURCE_ID.test(id) ? await deps.store.dataSources.get(projectId, id) : undefined;
  if (!s) throw new AppError('NOT_FOUND', { dataSourceId: id });
  return s;
}

/** docs/concepts.md#data-sources: a source whose `deviceClasses` filter is empty takes every class */
export const takesClass = (s: Pick<DataSourceRow, 'deviceClasses'>, deviceClass: string): boolean =>
  !s.deviceClasses || s.deviceClasses.length === 0 || s.deviceClasses.includes(deviceClass);
