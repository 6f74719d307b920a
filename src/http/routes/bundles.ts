// Mounted at /bundles (see index.ts). Firmware bundles (docs/concepts.md).
import { Hono } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { pageOf } from '../paging.js';
import { STATUSES, actor, sliceResponse } from '../params.js';
import { BundleListQuerySchema, BundleSchema, CreateBundleBodySchema, createBundle, deleteBundle, getBundle, listBundles } from '../../domain/bundle/index.js';

const tag = 'bundles';
const KEY = 'project key with scope devices';

export function bundlesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/',
    op({
      operationId: 'getBundles',
      summary: "A project's bundles; a device sees those of its class and channel",
      tag,
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
        await listBundles({ ...actor(c), input: { filter: { projectId: q.projectId, deviceClass: q.deviceClass, channel: q.channel } } }),
      );
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createBundle',
      summary: 'Create a firmware bundle',
      tag,
      success: 201,
      statuses: STATUSES.list,
      body: CreateBundleBodySchema,
      response: BundleSchema,
      auth: KEY,
    }),
    async (c) => c.json(await createBundle({ ...actor(c), input: { body: await readBody(c) } }), 201),
  );

  r.get(
    '/:bundleId',
    op({
      operationId: 'getBundle',
      summary: 'One bundle',
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: BundleSchema,
      auth: `${KEY}, or a device of its class`,
    }),
    async (c) => c.json(await getBundle({ ...actor(c), input: { bundleId: c.req.param('bundleId') } })),
  );

  r.delete('/:bundleId', op({ operationId: 'deleteBundle', summary: 'Delete a bundle', tag, success: 204, statuses: STATUSES.read, auth: KEY }), async (c) => {
    await deleteBundle({ ...actor(c), input: { bundleId: c.req.param('bundleId') } });
    return c.body(null, 204);
  });

  return r;
}
