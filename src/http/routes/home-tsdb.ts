// Mounted at /homes (see index.ts). A home's time series of a tsdb smart module (docs/timeseries.md,
// MODE's paths): the series, one series, its time range, its data aggregated per bucket, and
// deleting a series.
import type { Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { resource } from '../op.js';
import { STATUSES } from '../params.js';
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
import { noContent } from '../no-content.js';

const base = '/:homeId/smartModules/:moduleId/timeSeries';

function scope(c: Context<HttpEnv>) {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller, homeIdRaw: c.req.param('homeId')!, moduleId: c.req.param('moduleId')! };
}
const series = (c: Context<HttpEnv>) => ({ ...scope(c), seriesId: c.req.param('seriesId')! });

const readers = 'a member of the home, or a project key with scope data';

export const homeTsdbRoutes = resource({ tag: 'time series', statuses: STATUSES.read, auth: readers }, (r, op) => {
  r.get(
    base,
    op({
      operationId: 'getTimeSeriesList',
      summary: 'The series of the home in a tsdb module (docs/timeseries.md)',
      success: 200,
      response: v.array(TimeSeriesInfoSchema),
    }),
    async (c) => {
      const { deps, caller, homeIdRaw, moduleId } = scope(c);
      return c.json(await listTimeSeries({ deps, caller, input: { homeIdRaw, moduleId } }));
    },
  );

  r.get(`${base}/:seriesId`, op({ operationId: 'getTimeSeries', summary: 'One series', success: 200, response: TimeSeriesInfoSchema }), async (c) => {
    const { deps, caller, ...input } = series(c);
    return c.json(await getTimeSeries({ deps, caller, input }));
  });

  r.get(
    `${base}/:seriesId/timeRange`,
    op({ operationId: 'getTimeSeriesRange', summary: "The series' first and last point's timestamps", success: 200, response: TimeRangeSchema }),
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
      success: 200,
      query: DataQuerySchema,
      response: TimeSeriesDataSchema,
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
      success: 204,
      auth: 'an owner of the home, or a project key with scope data',
    }),
    async (c) => {
      const { deps, caller, ...input } = series(c);
      await deleteTimeSeries({ deps, caller, input });
      return noContent(c);
    },
  );
});
