// Mounted at /homes (see index.ts). A home's time series of a tsdb smart module (docs/timeseries.md,
// MODE's paths): the series, one series, its time range, its data aggregated per bucket, and
// deleting a series.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { requireCaller } from '../../domain/auth/access.js';
import {
  DataQuerySchema,
  TimeRangeSchema,
  TimeSeriesDataSchema,
  TimeSeriesInfoSchema,
  deleteTimeSeries,
  getTimeSeries,
  getTimeSeriesData,
  getTimeSeriesRange,
  listTimeSeries,
} from '../../domain/tsdb/index.js';

const tag = 'time series';
const STATUSES = [401, 403, 404, 429, 500, 503] as const;
const base = '/:homeId/smartModules/:moduleId/timeSeries';
const readers = 'a member of the home, or a project key with scope data';

function scope(c: Context<HttpEnv>) {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller, homeIdRaw: c.req.param('homeId')!, moduleId: c.req.param('moduleId')! };
}
const series = (c: Context<HttpEnv>) => ({ ...scope(c), seriesId: c.req.param('seriesId')! });

export function homeTsdbRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    base,
    op({
      operationId: 'getTimeSeriesList',
      summary: 'The series of the home in a tsdb module (docs/timeseries.md)',
      tag,
      success: 200,
      statuses: STATUSES,
      response: v.array(TimeSeriesInfoSchema),
      auth: readers,
    }),
    async (c) => {
      const { deps, caller, homeIdRaw, moduleId } = scope(c);
      return c.json(await listTimeSeries({ deps, caller, input: { homeIdRaw, moduleId } }));
    },
  );

  r.get(
    `${base}/:seriesId`,
    op({ operationId: 'getTimeSeries', summary: 'One series', tag, success: 200, statuses: STATUSES, response: TimeSeriesInfoSchema, auth: readers }),
    async (c) => {
      const { deps, caller, ...input } = series(c);
      return c.json(await getTimeSeries({ deps, caller, input }));
    },
  );

  r.get(
    `${base}/:seriesId/timeRange`,
    op({
      operationId: 'getTimeSeriesRange',
      summary: "The series' first and last point's timestamps",
      tag,
      success: 200,
      statuses: STATUSES,
      response: TimeRangeSchema,
      auth: readers,
    }),
    async (c) => {
      const { deps, caller, ...input } = series(c);
      return c.json(await getTimeSeriesRange({ deps, caller, input }));
    },
  );

  r.get(
    `${base}/:seriesId/data`,
    op({
      operationId: 'getTimeSeriesData',
      summary: 'The points of [begin, end) aggregated per bucket of a resolution (chosen for about 1,000 buckets when absent); empty buckets left out',
      tag,
      success: 200,
      statuses: STATUSES,
      query: DataQuerySchema,
      response: TimeSeriesDataSchema,
      auth: readers,
    }),
    async (c) => {
      const { deps, caller, ...path } = series(c);
      return c.json(await getTimeSeriesData({ deps, caller, input: { ...path, query: c.req.query() } }));
    },
  );

  r.delete(
    `${base}/:seriesId`,
    op({
      operationId: 'deleteTimeSeries',
      summary: 'Delete a series with its points',
      tag,
      success: 204,
      statuses: STATUSES,
      auth: 'an owner of the home, or a project key with scope data',
    }),
    async (c) => {
      const { deps, caller, ...input } = series(c);
      await deleteTimeSeries({ deps, caller, input });
      return c.body(null, 204);
    },
  );

  return r;
}
