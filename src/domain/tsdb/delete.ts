// docs/timeseries.md#deleting: a home owner or a project key deletes a series with its points and rollups.
import type { StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { DELETERS, seriesFor, type TsdbAccessDeps } from './access.js';

export async function deleteTimeSeries({
  deps,
  caller,
  input,
}: VerbArgs<TsdbAccessDeps & StoreOf<'tsdb' | 'transaction'>, { homeIdRaw: string; moduleId: string; seriesId: string }>): Promise<void> {
  const key = await seriesFor(deps, caller, input, DELETERS);
  if (!(await deps.store.transaction((tx) => tx.tsdb.deleteSeries(key)))) throw new AppError('NOT_FOUND', { seriesId: key.seriesId });
}
