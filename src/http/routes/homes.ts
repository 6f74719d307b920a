// Mounted at /homes (see index.ts). Homes, members and provisioning tokens (docs/concepts.md). The home
// KV store (/homes/{id}/kv) lives in home-kv.ts.
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, homeIdIn, sliceResponse, userIdIn } from '../params.js';
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
import { noContent } from '../no-content.js';

const KEY = 'project key with scope homes';

export const homesRoutes = resource({ tag: 'homes', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/',
    op({
      operationId: 'getHomes',
      summary: "A project's homes (optionally one user's), or the calling user's homes",
      success: 200,
      statuses: STATUSES.list,
      query: HomeListQuerySchema,
      response: v.array(HomeSchema),
      auth: `${KEY}, or a user`,
    }),
    async (c) => {
      const q = parseQuery(c, HomeListQuerySchema);
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(
        c,
        page,
        await listHomes({ deps: c.get('deps'), caller: c.get('caller'), input: { filter: { projectId: q.projectId, userId: q.userId }, page } }),
      );
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createHome',
      summary: 'Create a home (a user caller becomes its owner)',
      success: 201,
      statuses: STATUSES.list,
      body: CreateHomeBodySchema,
      response: HomeSchema,
      auth: `${KEY} (naming its projectId), or a user`,
    }),
    async (c) => c.json(await createHome({ deps: c.get('deps'), caller: c.get('caller'), input: { body: await readBody(c) } }), 201),
  );

  r.get('/:homeId', op({ operationId: 'getHome', summary: 'One home', success: 200, response: HomeSchema, auth: `${KEY}, or a member` }), async (c) =>
    c.json(await getHome({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c) } })),
  );

  r.patch(
    '/:homeId',
    op({ operationId: 'updateHome', summary: 'Rename a home', success: 200, body: PatchHomeBodySchema, response: HomeSchema, auth: `${KEY}, or an owner` }),
    async (c) => c.json(await updateHome({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c), body: await readBody(c) } })),
  );

  r.delete(
    '/:homeId',
    op({ operationId: 'deleteHome', summary: 'Delete a home: its devices leave it, its KV store and members go', success: 204, auth: `${KEY}, or an owner` }),
    async (c) => {
      await deleteHome({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c) } });
      return noContent(c);
    },
  );

  r.get(
    '/:homeId/members',
    op({ operationId: 'getHomeMembers', summary: "A home's members", success: 200, response: v.array(MemberSchema), auth: `${KEY}, or a member` }),
    async (c) =>
      sliceResponse(c, pageOf(c, c.get('deps').limits), await listMembers({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c) } })),
  );

  r.post(
    '/:homeId/members',
    op({
      operationId: 'addHomeMember',
      summary:
        'Add a user of the project to a home by `userId` or by `email` (`phoneNumber` is accepted and ignored), or change its role; an unknown user is 404 USER_NOT_FOUND',
      success: 201,
      body: AddMemberBodySchema,
      response: MemberSchema,
      auth: `${KEY}, or an owner`,
    }),
    async (c) => c.json(await addMember({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c), body: await readBody(c) } }), 201),
  );

  r.patch(
    '/:homeId/members/:userId',
    op({
      operationId: 'updateHomeMember',
      summary: "Change a member's role; demoting the home's last owner is 403 LAST_OWNER",
      success: 200,
      body: PatchMemberBodySchema,
      response: MemberSchema,
      auth: `${KEY}, or an owner`,
    }),
    async (c) =>
      c.json(
        await updateMember({
          deps: c.get('deps'),
          caller: c.get('caller'),
          input: { homeId: homeIdIn(c), userId: userIdIn(c), body: await readBody(c) },
        }),
      ),
  );

  r.delete(
    '/:homeId/members/:userId',
    op({
      operationId: 'deleteHomeMember',
      summary: 'Remove a member (any member may remove itself); the last owner of a home with other members is 403 LAST_OWNER',
      success: 204,
      auth: `${KEY}, an owner, or the member itself`,
    }),
    async (c) => {
      await removeMember({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c), userId: userIdIn(c) } });
      return noContent(c);
    },
  );

  r.post(
    '/:homeId/deviceProvisioning',
    op({
      operationId: 'createDeviceProvisioningToken',
      summary: 'A single-use token with which a device joins this home (POST /devices {token})',
      success: 201,
      body: ProvisioningBodySchema,
      response: ProvisioningTokenSchema,
      auth: 'project key with scope devices, or a member',
    }),
    async (c) =>
      c.json(await createProvisioningToken({ deps: c.get('deps'), caller: c.get('caller'), input: { homeId: homeIdIn(c), body: await readBody(c) } }), 201),
  );
});
