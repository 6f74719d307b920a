// Data sources of a project and the records `store` sources keep (docs/concepts.md#data-sources). Mounted at
// /projects. Our own endpoints (docs/api.md#errors statuses): a project key with scope `data`.
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, projectScope, sliceResponse, withWebhookChecks } from '../params.js';
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
import { noContent } from '../no-content.js';

export const dataSourcesRoutes = resource({ tag: 'data sources', statuses: STATUSES.read, auth: 'a project key with scope data' }, (r, op) => {
  const base = '/:projectId/dataSources';

  r.get(
    base,
    op({ operationId: 'getDataSources', summary: "A project's data sources (keys masked)", success: 200, response: v.array(DataSourceSchema) }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      const page = pageOf(c, deps.limits);
      return sliceResponse(c, page, await listDataSources({ deps, caller, input: { projectId } }));
    },
  );

  r.post(
    base,
    op({
      operationId: 'createDataSource',
      summary: 'Create a data source; a webhook source key is shown in this answer only',
      success: 201,
      body: CreateDataSourceSchema,
      response: DataSourceSchema,
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await createDataSource({ deps: withWebhookChecks(deps), caller, input: { projectId, body: await readBody(c) } }), 201);
    },
  );

  r.get(`${base}/:dataSourceId`, op({ operationId: 'getDataSource', summary: 'One data source', success: 200, response: DataSourceSchema }), async (c) => {
    const { deps, caller, projectId } = projectScope(c);
    return c.json(await getDataSource({ deps, caller, input: { projectId, id: c.req.param('dataSourceId') } }));
  });

  r.patch(
    `${base}/:dataSourceId`,
    op({ operationId: 'updateDataSource', summary: 'Update a data source', success: 200, body: PatchDataSourceSchema, response: DataSourceSchema }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(
        await updateDataSource({
          deps: withWebhookChecks(deps),
          caller,
          input: { projectId, id: c.req.param('dataSourceId'), body: await readBody(c) },
        }),
      );
    },
  );

  r.delete(`${base}/:dataSourceId`, op({ operationId: 'deleteDataSource', summary: 'Delete a data source and its records', success: 204 }), async (c) => {
    const { deps, caller, projectId } = projectScope(c);
    await deleteDataSource({ deps, caller, input: { projectId, id: c.req.param('dataSourceId') } });
    return noContent(c);
  });

  r.get(
    `${base}/:dataSourceId/records`,
    op({
      operationId: 'getDataRecords',
      summary: 'Records a store source kept, newest first',
      success: 200,
      query: RecordsQuerySchema,
      response: v.array(DataRecordSchema),
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      const q = parseQuery(c, RecordsQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listDataRecords({ deps, caller, input: { projectId, id: c.req.param('dataSourceId'), query: q, page } }));
    },
  );
});
