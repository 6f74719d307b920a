// docs/timeseries.md#querying: a series' points aggregated per bucket of a resolution, read from the
// rollup that serves it (resolution.ts), so the cost follows the number of buckets, not of points.
import type { StoreOf, VerbArgs } from '../deps.js';
import type { TsdbBucket } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { READERS, seriesFor, type TsdbAccessDeps } from './access.js';
import { autoResolution, MAX_BUCKETS, monthOf, planOf } from './resolution.js';
import { DataQuerySchema, type Aggregation, type TimeSeriesData } from './schemas.js';

const valueOf: Record<Aggregation, (b: TsdbBucket) => number> = {
  avg: (b) => b.sum / b.count,
  min: (b) => b.min,
  max: (b) => b.max,
  sum: (b) => b.sum,
  count: (b) => b.count,
};

/** day buckets into calendar months (UTC) */
function byMonth(days: TsdbBucket[]): TsdbBucket[] {
  const out: TsdbBucket[] = [];
  for (const d of days) {
    const start = monthOf(d.start);
    const last = out[out.length - 1];
    if (last && last.start === start) {
      last.sum += d.sum;
      last.count += d.count;
      last.min = Math.min(last.min, d.min);
      last.max = Math.max(last.max, d.max);
    } else out.push({ ...d, start });
  }
  return out;
}

export async function getTimeSeriesData({
  deps,
  caller,
  input,
}: VerbArgs<TsdbAccessDeps & StoreOf<'tsdb'>, { homeIdRaw: string; moduleId: string; seriesId: string; query: unknown }>): Promise<TimeSeriesData> {
  const key = await seriesFor(deps, caller, input, READERS);
  const q = parseWith(DataQuerySchema, input.query);
  const resolution = q.resolution ?? autoResolution(q.begin, q.end);
  const plan = planOf(resolution, q.begin, q.end);
  if (plan.buckets > MAX_BUCKETS) {
    throw new AppError('INVALID_PARAMETERS', {
      issues: [
        {
          path: 'resolution',
          message: `${resolution} over this range is ${plan.buckets} buckets; at most ${MAX_BUCKETS} (leave resolution out to get about 1000)`,
        },
      ],
    });
  }
  const rows = await deps.store.tsdb.buckets(key, plan);
  const buckets = plan.monthly ? byMonth(rows) : rows;
  const value = valueOf[q.aggregation];
  return {
    seriesId: key.seriesId,
    aggregation: q.aggregation,
    begin: new Date(q.begin).toISOString(),
    end: new Date(q.end).toISOString(),
    resolution,
    data: buckets.map((b) => [new Date(b.start).toISOString(), value(b)]),
  };
}
