// Home time series (docs/timeseries.md): the query of a data request and the answers.
import * as v from 'valibot';
import { RESOLUTIONS } from './resolution.js';
import { pointTime } from './points.js';

export const AGGREGATIONS = ['avg', 'min', 'max', 'sum', 'count'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** docs/timeseries.md#querying: RFC 3339, or epoch milliseconds in digits */
const TimeParam = (name: string) =>
  v.pipe(
    v.string(`${name} is required (RFC 3339 or epoch milliseconds)`),
    v.transform((s) => pointTime(/^\d+$/.test(s) ? Number(s) : s)),
    v.number(`${name} must be an RFC 3339 time with a zone (2026-11-27T03:00:00Z) or epoch milliseconds`),
  );

export const DataQuerySchema = v.pipe(
  v.object({
    begin: TimeParam('begin'),
    end: TimeParam('end'),
    aggregation: v.optional(v.picklist(AGGREGATIONS, `aggregation must be one of ${AGGREGATIONS.join(', ')}`), 'avg'),
    resolution: v.optional(v.picklist(RESOLUTIONS, `resolution must be one of ${RESOLUTIONS.join(', ')}`)),
  }),
  v.forward(
    v.check((q) => q.begin < q.end, 'end must be after begin'),
    ['end'],
  ),
);

export const TimeSeriesInfoSchema = v.object({ id: v.string(), homeId: v.number(), moduleId: v.string() });
export type TimeSeriesInfo = v.InferOutput<typeof TimeSeriesInfoSchema>;

export const TimeRangeSchema = v.object({ seriesId: v.string(), begin: v.string(), end: v.string() });
export type TimeRange = v.InferOutput<typeof TimeRangeSchema>;

export const TimeSeriesDataSchema = v.object({
  seriesId: v.string(),
  aggregation: v.picklist(AGGREGATIONS),
  begin: v.string(),
  end: v.string(),
  resolution: v.picklist(RESOLUTIONS),
  /** [bucket start (RFC 3339), value], buckets with no point left out */
  data: v.array(v.tuple([v.string(), v.number()])),
});
export type TimeSeriesData = v.InferOutput<typeof TimeSeriesDataSchema>;
