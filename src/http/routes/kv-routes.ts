// The four key-value operations (docs/api.md#device-operations, docs/devices.md#kv-sync), built once for both kinds of store:
// device stores (/devices/{id}/kv) and home stores (/homes/{id}/kv), "same rules". Each route
// resolves its store through `resolve` (access first, so nothing of another project or home
// is revealed), then hands it to the domain verbs in src/domain/kv.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { HttpEnv, ApiDeps } from '../env.js';
import type { Caller } from '../../domain/caller.js';
import type { Reason } from '../../domain/errors.js';
import { KvItemSchema, KvPutBodySchema, deleteKv, getKv, listKv, setKv, type KvTarget } from '../../domain/kv/index.js';
import { op } from '../op.js';
import { parseBody, parseQuery } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { pageQueryEntries } from '../../domain/log/query.js';
import { idOrNotFound } from '../../domain/id.js';

export type KvMode = 'read' | 'write';

export interface KvRoutesOptions {
  /** path parameter holding the owner id */
  param: 'deviceId' | 'homeId';
  /** reason for an owner id that is not a positive integer */
  notFound: Reason;
  tag: string;
  /** operationIds: the device store uses the documented names, the home store its own */
  ids: { list: string; get: string; put: string; delete: string };
  /** owner name, for the summaries */
  of: string;
  auth: { read: string; write: string };
  resolve(deps: ApiDeps, caller: Caller, ownerId: number, mode: KvMode): Promise<KvTarget>;
}

const KvListQuery = v.object({
  keyPrefix: v.optional(v.pipe(v.string(), v.maxLength(256, 'keyPrefix is at most 256 characters'))),
  ...pageQueryEntries,
});

export function kvRoutes(o: KvRoutesOptions): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const base = `/:${o.param}/kv`;
  const target = (c: { get(k: 'deps'): ApiDeps; get(k: 'caller'): Caller; req: { param(k: string): string } }, mode: KvMode) =>
    o.resolve(c.get('deps'), c.get('caller'), idOrNotFound(c.req.param(o.param), o.notFound, o.param), mode);

  r.get(
    base,
    op({
      spec: 'getKeyValuePairsReceiveUpdates',
      operationId: o.ids.list,
      summary: `List the key-value pairs of ${o.of}`,
      tag: o.tag,
      success: 200,
      query: KvListQuery,
      response: v.array(KvItemSchema),
      auth: o.auth.read,
    }),
    async (c) => {
      const store = await target(c, 'read');
      const { keyPrefix } = parseQuery(c, KvListQuery);
      const page = pageOf(c, c.get('deps').limits);
      // a store holds at most limits.kvKeysPerStore pairs: paging in memory is cheap
      const { items } = await listKv({ deps: c.get('deps'), input: { target: store, keyPrefix } });
      return listResponse(c, page, { items: items.slice(page.skip, page.skip + page.limit), total: items.length });
    },
  );

  r.get(
    `${base}/:key`,
    op({
      spec: 'lookUpKeyValuePair',
      operationId: o.ids.get,
      summary: `Get one key-value pair of ${o.of}`,
      tag: o.tag,
      success: 200,
      response: KvItemSchema,
      auth: o.auth.read,
    }),
    async (c) => c.json(await getKv({ deps: c.get('deps'), input: { target: await target(c, 'read'), key: c.req.param('key') } })),
  );

  r.put(
    `${base}/:key`,
    op({
      spec: 'createUpdateKeyValuePair',
      operationId: o.ids.put,
      summary: `Create or update a key-value pair of ${o.of}`,
      tag: o.tag,
      success: 204,
      body: KvPutBodySchema,
      auth: o.auth.write,
    }),
    async (c) => {
      const store = await target(c, 'write');
      const { value } = await parseBody(c, KvPutBodySchema);
      await setKv({ deps: c.get('deps'), input: { target: store, key: c.req.param('key'), value } });
      return c.body(null, 204);
    },
  );

  r.delete(
    `${base}/:key`,
    op({ spec: 'deleteKeyValuePair', operationId: o.ids.delete, summary: `Delete a key-value pair of ${o.of}`, tag: o.tag, success: 204, auth: o.auth.write }),
    async (c) => {
      await deleteKv({ deps: c.get('deps'), input: { target: await target(c, 'write'), key: c.req.param('key') } });
      return c.body(null, 204);
    },
  );

  return r;
}
