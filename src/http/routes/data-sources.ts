// Data sources of a project and the records `store` sources keep (docs/concepts.md#data-sources). Mounted at
// /projects. Our own endpoints (docs/api.md#errors statuses): a project key with scope `data`.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { sliceResponse } from '../params.js';
import { requireCaller } from '../../domain/auth/access.js';
import { parseProjectId } from '../../domain/module/access.js';
import { webhookChecksOf } from '../../domain/webhook/checks.js';
import {
  CreateDataSourceSchema,
  DataRecordSchema,
  DataSourceSchema,
  PatchDataSourceSchema,
  RecordsQuerySchema,
  createDataSource,
  deleteDataSource,
  getDataSource,
  listDataRecords,
  listDataSources,
  updateDataSource,
} from '../../domain/data/index.js';

const tag = 'data sources';
const auth = 'a project key with scope data';
const READ = [401, 403, 404, 429, 500, 503] as const;

/** the caller first (401 before anything about the path), then the project in the path */
function scope(c: Context<HttpEnv>) {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller, projectId: parseProjectId(c.req.param('projectId') ?? '') };
}

export function dataSourcesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const base = '/:projectId/dataSources';

  r.get(
    base,
    op({
      operationId: 'getDataSources',
      summary: "A project's data sources (keys masked)",
      tag,
      success: 200,
      statuses: READ,
      response: v.array(DataSourceSchema),
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      const page = pageOf(c, deps.limits);
      return sliceResponse(c, page, await listDataSources({ deps, caller, input: { projectId } }));
    },
  );

  r.post(
    base,
    op({
      operationId: 'createDataSource',
      summary: 'Create a data source; a webhook source key is shown in this answer only',
      tag,
      success: 201,
      statuses: READ,
      body: CreateDataSourceSchema,
      response: DataSourceSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await createDataSource({ deps: { ...deps, checks: webhookChecksOf(deps) }, caller, input: { projectId, body: await readBody(c) } }), 201);
    },
  );

  r.get(
    `${base}/:dataSourceId`,
    op({ operationId: 'getDataSource', summary: 'One data source', tag, success: 200, statuses: READ, response: DataSourceSchema, auth }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await getDataSource({ deps, caller, input: { projectId, id: c.req.param('dataSourceId') } }));
    },
  );

  r.patch(
    `${base}/:dataSourceId`,
    op({
      operationId: 'updateDataSource',
      summary: 'Update a data source',
      tag,
      success: 200,
      statuses: READ,
      body: PatchDataSourceSchema,
      response: DataSourceSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(
        await updateDataSource({
          deps: { ...deps, checks: webhookChecksOf(deps) },
          caller,
          input: { projectId, id: c.req.param('dataSourceId'), body: await readBody(c) },
        }),
      );
    },
  );

  r.delete(
    `${base}/:dataSourceId`,
    op({ operationId: 'deleteDataSource', summary: 'Delete a data source and its records', tag, success: 204, statuses: READ, auth }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      await deleteDataSource({ deps, caller, input: { projectId, id: c.req.param('dataSourceId') } });
      return c.body(null, 204);
    },
  );

  r.get(
    `${base}/:dataSourceId/records`,
    op({
      operationId: 'getDataRecords',
      summary: 'Records a store source kept, newest first',
      tag,
      success: 200,
      statuses: READ,
      query: RecordsQuerySchema,
      response: v.array(DataRecordSchema),
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      const q = parseQuery(c, RecordsQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listDataRecords({ deps, caller, input: { projectId, id: c.req.param('dataSourceId'), query: q, page } }));
    },
  );

  return r;
}
