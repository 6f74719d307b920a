// postData (docs/concepts.md#data-sources, docs/api.md#device-operations; docs/concepts.md#data-sources): POST /devices/{deviceId}/data `{data: [...]}` by the
// device itself or a project key with scope `data`. Mounted at /devices. MQTT publishes to
// `/devices/{id}/data` reach the same verb from the broker.
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { pathId } from '../params.js';
import { DataPostResultSchema, DataPostSchema, postData } from '../../domain/data/index.js';

export function deviceDataRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  r.post(
    '/:deviceId/data',
    op({
      spec: 'postData',
      operationId: 'postData',
      summary: 'Post data records, routed to every matching data source',
      tag: 'data',
      success: 200,
      body: DataPostSchema,
      response: DataPostResultSchema,
      auth: 'the device itself, a project key with scope data',
    }),
    async (c) => {
      const deviceId = pathId(c, 'deviceId', 'DEVICE_NOT_FOUND');
      return c.json(await postData({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId, body: await readBody(c) } }));
    },
  );
  return r;
}
