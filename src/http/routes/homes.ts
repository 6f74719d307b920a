// Mounted at /homes (see index.ts). Homes, members and provisioning tokens (docs/concepts.md). The home
// KV store (/homes/{id}/kv) lives in home-kv.ts.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, actor, pathId, sliceResponse } from '../params.js';
import {
  AddMemberBodySchema,
  CreateHomeBodySchema,
  HomeListQuerySchema,
  HomeSchema,
  MemberSchema,
  PatchHomeBodySchema,
  PatchMemberBodySchema,
  ProvisioningBodySchema,
  ProvisioningTokenSchema,
  addMember,
  createHome,
  createProvisioningToken,
  deleteHome,
  getHome,
  listHomes,
  listMembers,
  removeMember,
  updateHome,
  updateMember,
} from '../../domain/home/index.js';

const tag = 'homes';
const KEY = 'project key with scope homes';
const hid = (c: Context) => pathId(c, 'homeId', 'HOME_NOT_FOUND');

export function homesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/',
    op({
      operationId: 'getHomes',
      summary: "A project's homes (optionally one user's), or the calling user's homes",
      tag,
      success: 200,
      statuses: STATUSES.list,
      query: HomeListQuerySchema,
      response: v.array(HomeSchema),
      auth: `${KEY}, or a user`,
    }),
    async (c) => {
      const q = parseQuery(c, HomeListQuerySchema);
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(c, page, await listHomes({ ...actor(c), input: { filter: { projectId: q.projectId, userId: q.userId }, page } }));
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createHome',
      summary: 'Create a home (a user caller becomes its owner)',
      tag,
      success: 201,
      statuses: STATUSES.list,
      body: CreateHomeBodySchema,
      response: HomeSchema,
      auth: `${KEY} (naming its projectId), or a user`,
    }),
    async (c) => c.json(await createHome({ ...actor(c), input: { body: await readBody(c) } }), 201),
  );

  r.get(
    '/:homeId',
    op({
      operationId: 'getHome',
      summary: 'One home',
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: HomeSchema,
      auth: `${KEY}, or a member`,
    }),
    async (c) => c.json(await getHome({ ...actor(c), input: { homeId: hid(c) } })),
  );

  r.patch(
    '/:homeId',
    op({
      operationId: 'updateHome',
      summary: 'Rename a home',
      tag,
      success: 200,
      statuses: STATUSES.read,
      body: PatchHomeBodySchema,
      response: HomeSchema,
      auth: `${KEY}, or an owner`,
    }),
    async (c) => c.json(await updateHome({ ...actor(c), input: { homeId: hid(c), body: await readBody(c) } })),
  );

  r.delete(
    '/:homeId',
    op({
      operationId: 'deleteHome',
      summary: 'Delete a home: its devices leave it, its KV store and members go',
      tag,
      success: 204,
      statuses: STATUSES.read,
      auth: `${KEY}, or an owner`,
    }),
    async (c) => {
      await deleteHome({ ...actor(c), input: { homeId: hid(c) } });
      return c.body(null, 204);
    },
  );

  r.get(
    '/:homeId/members',
    op({
      operationId: 'getHomeMembers',
      summary: "A home's members",
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: v.array(MemberSchema),
      auth: `${KEY}, or a member`,
    }),
    async (c) => sliceResponse(c, pageOf(c, c.get('deps').limits), await listMembers({ ...actor(c), input: { homeId: hid(c) } })),
  );

  r.post(
    '/:homeId/members',
    op({
      operationId: 'addHomeMember',
      summary:
        'Add a user of the project to a home by `userId` or by `email` (`phoneNumber` is accepted and ignored), or change its role; an unknown user is 404 USER_NOT_FOUND',
      tag,
      success: 201,
      statuses: STATUSES.read,
      body: AddMemberBodySchema,
      response: MemberSchema,
      auth: `${KEY}, or an owner`,
    }),
    async (c) => c.json(await addMember({ ...actor(c), input: { homeId: hid(c), body: await readBody(c) } }), 201),
  );

  r.patch(
    '/:homeId/members/:userId',
    op({
      operationId: 'updateHomeMember',
      summary: "Change a member's role; demoting the home's last owner is 403 LAST_OWNER",
      tag,
      success: 200,
      statuses: STATUSES.read,
      body: PatchMemberBodySchema,
      response: MemberSchema,
      auth: `${KEY}, or an owner`,
    }),
    async (c) => c.json(await updateMember({ ...actor(c), input: { homeId: hid(c), userId: pathId(c, 'userId', 'USER_NOT_FOUND'), body: await readBody(c) } })),
  );

  r.delete(
    '/:homeId/members/:userId',
    op({
      operationId: 'deleteHomeMember',
      summary: 'Remove a member (any member may remove itself); the last owner of a home with other members is 403 LAST_OWNER',
      tag,
      success: 204,
      statuses: STATUSES.read,
      auth: `${KEY}, an owner, or the member itself`,
    }),
    async (c) => {
      await removeMember({ ...actor(c), input: { homeId: hid(c), userId: pathId(c, 'userId', 'USER_NOT_FOUND') } });
      return c.body(null, 204);
    },
  );

  r.post(
    '/:homeId/deviceProvisioning',
    op({
      operationId: 'createDeviceProvisioningToken',
      summary: 'A single-use token with which a device joins this home (POST /devices {token})',
      tag,
      success: 201,
      statuses: STATUSES.read,
      body: ProvisioningBodySchema,
      response: ProvisioningTokenSchema,
      auth: 'project key with scope devices, or a member',
    }),
    async (c) => c.json(await createProvisioningToken({ ...actor(c), input: { homeId: hid(c), body: await readBody(c) } }), 201),
  );

  return r;
}
