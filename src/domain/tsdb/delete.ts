// docs/timeseries.md#deleting: a home owner or a project key deletes a series with its points and rollups.
import type { StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { AppError } from '../errors.js';
import { DELETERS, seriesFor, type TsdbAccessDeps } from './access.js';

export async function deleteTimeSeries({
  deps,
  caller,
  input,
}: {
  deps: TsdbAccessDeps & StoreOf<'tsdb' | 'transaction'>;
  caller: Caller;
  input: { homeIdRaw: string; moduleId: string; seriesId: string };
}): Promise<void> {
  const key = await seriesFor(deps, caller, input, DELETERS);
  if (!(await deps.store.transaction((tx) => tx.tsdb.deleteSeries(key)))) throw new AppError('NOT_FOUND', { seriesId: key.seriesId });
}
