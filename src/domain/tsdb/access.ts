// docs/timeseries.md#access: a home's time series are read by its members and by project keys
// (scope `data`); home owners and project keys may delete them. The module must be a tsdb module of
// the home's project; anything the caller may not see is reported missing.
import type { StoreOf } from '../deps.js';
import type { Caller } from '../caller.js';
import type { SeriesKey } from '../../ports/store.js';
import { homeFor, type HomeAccess } from '../auth/access.js';
import { AppError } from '../errors.js';
import { idOrNotFound } from '../id.js';
import { MAX_SERIES_ID } from './points.js';

export type TsdbAccessDeps = StoreOf<'homes' | 'members' | 'modules'>;

export const READERS: readonly HomeAccess[] = ['project key', 'member'];
export const DELETERS: readonly HomeAccess[] = ['project key', 'owner'];

/** the home and the tsdb module the path names, once the caller is admitted */
export async function tsdbModuleFor(
  deps: TsdbAccessDeps,
  caller: Caller,
  homeIdRaw: string,
  moduleId: string,
  who: readonly HomeAccess[],
): Promise<{ homeId: number; projectId: number; moduleId: string }> {
  const home = await homeFor(deps, caller, idOrNotFound(homeIdRaw, 'HOME_NOT_FOUND', 'homeId'), who, 'data');
  const m = moduleId.length <= 64 ? await deps.store.modules.get(home.projectId, moduleId) : undefined;
  if (!m || m.moduleType !== 'tsdb') throw new AppError('MODULE_NOT_FOUND', { moduleId });
  return { homeId: home.id, projectId: home.projectId, moduleId };
}

/** the series the path names; NOT_FOUND when the module has no such series */
export async function seriesFor(
  deps: TsdbAccessDeps & StoreOf<'tsdb'>,
  caller: Caller,
  input: { homeIdRaw: string; moduleId: string; seriesId: string },
  who: readonly HomeAccess[],
): Promise<SeriesKey> {
  const { homeId, moduleId } = await tsdbModuleFor(deps, caller, input.homeIdRaw, input.moduleId, who);
  const key = { homeId, moduleId, seriesId: input.seriesId };
  if (input.seriesId.length === 0 || input.seriesId.length > MAX_SERIES_ID || !(await deps.store.tsdb.exists(key))) {
    throw new AppError('NOT_FOUND', { seriesId: input.seriesId });
  }
  return key;
}
