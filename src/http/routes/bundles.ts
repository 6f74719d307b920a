// Mounted at /bundles (see index.ts). Firmware bundles (docs/concepts.md).
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { pageOf } from '../paging.js';
import { STATUSES, sliceResponse } from '../params.js';
import { BundleListQuerySchema, BundleSchema, CreateBundleBodySchema, createBundle, deleteBundle, getBundle, listBundles } from '../../domain/bundle/index.js';
import { noContent } from '../no-content.js';

const KEY = 'project key with scope devices';

export const bundlesRoutes = resource({ tag: 'bundles', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/',
    op({
      operationId: 'getBundles',
      summary: "A project's bundles; a device sees those of its class and channel",
      success: 200,
      statuses: STATUSES.list,
      query: BundleListQuerySchema,
      response: v.array(BundleSchema),
      auth: `${KEY}, or a device`,
    }),
    async (c) => {
      const q = parseQuery(c, BundleListQuerySchema);
      const page = pageOf(c, c.get('deps').limits);
      return sliceResponse(
        c,
        page,
        await listBundles({
          deps: c.get('deps'),
          caller: c.get('caller'),
          input: { filter: { projectId: q.projectId, deviceClass: q.deviceClass, channel: q.channel } },
        }),
      );
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createBundle',
      summary: 'Create a firmware bundle',
      success: 201,
      statuses: STATUSES.list,
      body: CreateBundleBodySchema,
      response: BundleSchema,
      auth: KEY,
    }),
    async (c) => c.json(await createBundle({ deps: c.get('deps'), caller: c.get('caller'), input: { body: await readBody(c) } }), 201),
  );

  r.get(
    '/:bundleId',
    op({ operationId: 'getBundle', summary: 'One bundle', success: 200, response: BundleSchema, auth: `${KEY}, or a device of its class` }),
    async (c) => c.json(await getBundle({ deps: c.get('deps'), caller: c.get('caller'), input: { bundleId: c.req.param('bundleId') } })),
  );

  r.delete('/:bundleId', op({ operationId: 'deleteBundle', summary: 'Delete a bundle', success: 204, auth: KEY }), async (c) => {
    await deleteBundle({ deps: c.get('deps'), caller: c.get('caller'), input: { bundleId: c.req.param('bundleId') } });
    return noContent(c);
  });
});
