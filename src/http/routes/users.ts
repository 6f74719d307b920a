// Mounted at /users (see index.ts). Users of a project (docs/concepts.md): project keys with the
// `users` scope manage them; a user may read and update itself.
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, userIdIn } from '../params.js';
import {
  CreateUserBodySchema,
  PatchUserBodySchema,
  UserListQuerySchema,
  UserSchema,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  updateUser,
} from '../../domain/user/index.js';
import { noContent } from '../no-content.js';

const KEY = 'project key with scope users';

export const usersRoutes = resource({ tag: 'users', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/',
    op({
      operationId: 'getUsers',
      summary: "A project's users, optionally by email or name substring",
      success: 200,
      statuses: STATUSES.list,
      query: UserListQuerySchema,
      response: v.array(UserSchema),
      auth: KEY,
    }),
    async (c) => {
      const q = parseQuery(c, UserListQuerySchema);
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(
        c,
        page,
        await listUsers({ deps: c.get('deps'), caller: c.get('caller'), input: { filter: { projectId: q.projectId, search: q.search }, page } }),
      );
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createUser',
      summary:
        "Create a user. Without a credential this is self-signup, allowed while the project's `allowUserSignup` is true (canCreateDevices then 403); signups are throttled per client IP (429 RATE_LIMITED with Retry-After)",
      success: 201,
      statuses: STATUSES.list,
      body: CreateUserBodySchema,
      response: UserSchema,
      auth: `${KEY}; or no credential (self-signup)`,
    }),
    async (c) => c.json(await createUser({ deps: c.get('deps'), caller: c.get('caller'), input: { body: await readBody(c) } }), 201),
  );

  r.get('/:userId', op({ operationId: 'getUser', summary: 'One user', success: 200, response: UserSchema, auth: `${KEY}, or the user itself` }), async (c) =>
    c.json(await getUser({ deps: c.get('deps'), caller: c.get('caller'), input: { userId: userIdIn(c) } })),
  );

  r.patch(
    '/:userId',
    op({
      operationId: 'updateUser',
      summary:
        'Update a user; answers 204 as MODE does. A user changing its own password also sends currentPassword unless its session is under 10 minutes old; a password change ends every other session of the user',
      success: 204,
      body: PatchUserBodySchema,
      auth: `${KEY}, or the user itself (not canCreateDevices)`,
    }),
    async (c) => {
      await updateUser({ deps: c.get('deps'), caller: c.get('caller'), input: { userId: userIdIn(c), body: await readBody(c) } });
      return noContent(c);
    },
  );

  r.delete('/:userId', op({ operationId: 'deleteUser', summary: 'Delete a user, its sessions and its memberships', success: 204, auth: KEY }), async (c) => {
    await deleteUser({ deps: c.get('deps'), caller: c.get('caller'), input: { userId: userIdIn(c) } });
    return noContent(c);
  });
});
