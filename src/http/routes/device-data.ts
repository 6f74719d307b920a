// postData (docs/concepts.md#data-sources, docs/api.md#device-operations; docs/concepts.md#data-sources): POST /devices/{deviceId}/data `{data: [...]}` by the
// device itself or a project key with scope `data`. Mounted at /devices. MQTT publishes to
// `/devices/{id}/data` reach the same verb from the broker.
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { deviceIdIn } from '../params.js';
import { DataPostResultSchema, DataPostSchema, postData } from '../../domain/data/index.js';

export const deviceDataRoutes = resource({ tag: 'data' }, (r, op) => {
  r.post(
    '/:deviceId/data',
    op({
      spec: 'postData',
      summary: 'Post data records, routed to every matching data source',
      success: 200,
      body: DataPostSchema,
      response: DataPostResultSchema,
      auth: 'the device itself, a project key with scope data',
    }),
    async (c) => {
      const deviceId = deviceIdIn(c);
      return c.json(await postData({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId, body: await readBody(c) } }));
    },
  );
});
