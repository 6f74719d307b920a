// The four key-value operations (docs/api.md#device-operations, docs/devices.md#kv-sync), built once for both kinds of store:
// device stores (/devices/{id}/kv) and home stores (/homes/{id}/kv), "same rules". Each route
// resolves its store through `resolve` (access first, so nothing of another project or home
// is revealed), then hands it to the domain verbs in src/domain/kv.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv, ApiDeps } from '../env.js';
import type { Caller } from '../../domain/caller.js';
import type { Reason } from '../../domain/errors.js';
import { KvItemSchema, KvPutBodySchema, deleteKv, getKv, listKv, setKv, type KvTarget } from '../../domain/kv/index.js';
import { opsOf } from '../op.js';
import { parseBody, parseQuery } from '../body.js';
import { pageOf } from '../paging.js';
import { pathId, sliceResponse } from '../params.js';
import { pageQueryEntries } from '../../domain/log/query.js';
import { noContent } from '../no-content.js';

export type KvMode = 'read' | 'write';

/** per kind of owner: the path parameter holding its id, the reason for one that is not a positive integer, the tag and the owner's name in summaries */
const OWNERS: Readonly<Record<'device' | 'home', { param: string; notFound: Reason; tag: string; of: string }>> = {
  device: { param: 'deviceId', notFound: 'DEVICE_NOT_FOUND', tag: 'device key-value', of: 'a device' },
  home: { param: 'homeId', notFound: 'HOME_NOT_FOUND', tag: 'home key-value', of: 'a home' },
};

export interface KvRoutesOptions {
  owner: keyof typeof OWNERS;
  /** operationIds: the device store has the documented names (the default), the home store its own */
  ids?: { list: string; get: string; put: string; delete: string };
  auth: { read: string; write: string };
  resolve(deps: ApiDeps, caller: Caller, ownerId: number, mode: KvMode): Promise<KvTarget>;
}

const KvListQuery = v.object({
  keyPrefix: v.optional(v.pipe(v.string(), v.maxLength(256, 'keyPrefix is at most 256 characters'))),
  ...pageQueryEntries,
});

export function kvRoutes(o: KvRoutesOptions): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const { param, notFound, tag, of } = OWNERS[o.owner];
  // who may read, who may write: said once for the two of each
  const read = opsOf({ tag, auth: o.auth.read });
  const write = opsOf({ tag, auth: o.auth.write });
  const base = `/:${param}/kv`;
  const target = (c: Context<HttpEnv>, mode: KvMode) => o.resolve(c.get('deps'), c.get('caller'), pathId(c, param, notFound), mode);

  r.get(
    base,
    read({
      spec: 'getKeyValuePairsReceiveUpdates',
      operationId: o.ids?.list,
      summary: `List the key-value pairs of ${of}`,
      success: 200,
      query: KvListQuery,
      response: v.array(KvItemSchema),
    }),
    async (c) => {
      const store = await target(c, 'read');
      const { keyPrefix } = parseQuery(c, KvListQuery);
      const page = pageOf(c, c.get('deps').limits);
      // a store holds at most limits.kvKeysPerStore pairs: paging in memory is cheap
      const { items } = await listKv({ deps: c.get('deps'), input: { target: store, keyPrefix } });
      return sliceResponse(c, page, items);
    },
  );

  r.get(
    `${base}/:key`,
    read({ spec: 'lookUpKeyValuePair', operationId: o.ids?.get, summary: `Get one key-value pair of ${of}`, success: 200, response: KvItemSchema }),
    async (c) => c.json(await getKv({ deps: c.get('deps'), input: { target: await target(c, 'read'), key: c.req.param('key') } })),
  );

  r.put(
    `${base}/:key`,
    write({
      spec: 'createUpdateKeyValuePair',
      operationId: o.ids?.put,
      summary: `Create or update a key-value pair of ${of}`,
      success: 204,
      body: KvPutBodySchema,
    }),
    async (c) => {
      const store = await target(c, 'write');
      const { value } = await parseBody(c, KvPutBodySchema);
      await setKv({ deps: c.get('deps'), input: { target: store, key: c.req.param('key'), value } });
      return noContent(c);
    },
  );

  r.delete(
    `${base}/:key`,
    write({ spec: 'deleteKeyValuePair', operationId: o.ids?.delete, summary: `Delete a key-value pair of ${of}`, success: 204 }),
    async (c) => {
      await deleteKv({ deps: c.get('deps'), input: { target: await target(c, 'write'), key: c.req.param('key') } });
      return noContent(c);
    },
  );

  return r;
}
