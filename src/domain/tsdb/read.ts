// docs/timeseries.md#querying: the series of a home's tsdb module, one of them, and its time range
// (first and last point).
import type { StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { READERS, seriesFor, tsdbModuleFor, type TsdbAccessDeps } from './access.js';
import type { TimeRange, TimeSeriesInfo } from './schemas.js';

type ReadDeps = TsdbAccessDeps & StoreOf<'tsdb'>;
interface SeriesPath {
  homeIdRaw: string;
  moduleId: string;
  seriesId: string;
}

export async function listTimeSeries({ deps, caller, input }: VerbArgs<ReadDeps, { homeIdRaw: string; moduleId: string }>): Promise<TimeSeriesInfo[]> {
  const { homeId, moduleId } = await tsdbModuleFor(deps, caller, input.homeIdRaw, input.moduleId, READERS);
  return (await deps.store.tsdb.listSeries(homeId, moduleId)).map((id) => ({ id, homeId, moduleId }));
}

export async function getTimeSeries({ deps, caller, input }: VerbArgs<ReadDeps, SeriesPath>): Promise<TimeSeriesInfo> {
  const key = await seriesFor(deps, caller, input, READERS);
  return { id: key.seriesId, homeId: key.homeId, moduleId: key.moduleId };
}

export async function getTimeSeriesRange({ deps, caller, input }: VerbArgs<ReadDeps, SeriesPath>): Promise<TimeRange> {
  const key = await seriesFor(deps, caller, input, READERS);
  const r = await deps.store.tsdb.timeRange(key);
  // a series whose points all passed their retention
  if (!r) throw new AppError('NOT_FOUND', { seriesId: key.seriesId, message: 'the series has no point' });
  return { seriesId: key.seriesId, begin: new Date(r.begin).toISOString(), end: new Date(r.end).toISOString() };
}
