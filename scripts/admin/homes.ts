// Homes and their members (docs/concepts.md), through the same verbs as the HTTP API, acting as an admin
// key of the home's project.
import type { AdminContext } from './context.js';
import { type Command, all, intArg, str, stringArg } from './types.js';

const home = () => import('../../src/domain/home/index.js');

/** an admin caller of the project the home belongs to (HOME_NOT_FOUND when there is none) */
async function homeAdmin(ctx: AdminContext, homeId: number) {
  const row = await ctx.deps.store.homes.get(homeId);
  if (!row) throw await ctx.appError('HOME_NOT_FOUND', { homeId });
  return ctx.adminOf(row.projectId);
}

const ROLE = '[--role owner|member]';
const roleOf = (s: string | undefined) => s ?? 'member';

export const homes: Record<string, Command> = {
  list: {
    usage: 'homes list <projectId> [--user <userId>]',
    summary: "list a project's homes, or those a user is a member of",
    maxPositionals: 1,
    options: { user: { type: 'string' } },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const userId = str(a, 'user') === undefined ? undefined : intArg(str(a, 'user'), '--user');
      const caller = await ctx.adminOf(projectId);
      const { listHomes } = await home();
      return all((page) => listHomes({ deps: ctx.deps, caller, input: { filter: { projectId, userId }, page } }));
    },
  },
  create: {
    usage: 'homes create <projectId> <name>',
    summary: 'create a home with no members (then: members add <homeId> <user> --role owner)',
    maxPositionals: 2,
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const name = stringArg(a.positionals[1], '<name>');
      return (await home()).createHome({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input: { body: { projectId, name } } });
    },
  },
  delete: {
    usage: 'homes delete <homeId>',
    summary: 'delete a home: its devices leave it (they stay in the project), its KV store and memberships go',
    maxPositionals: 1,
    run: async (ctx, a) => {
      const homeId = intArg(a.positionals[0], '<homeId>');
      await (await home()).deleteHome({ deps: ctx.deps, caller: await homeAdmin(ctx, homeId), input: { homeId } });
      return { deleted: homeId };
    },
  },
};

/** `<user>`: a user id, or the email of a user of the home's project */
async function userIdOf(ctx: AdminContext, homeId: number, user: string): Promise<number> {
  if (!user.includes('@')) return intArg(user, '<user>');
  const h = await ctx.deps.store.homes.get(homeId);
  const u = h && (await ctx.deps.store.users.getByEmail(h.projectId, user.trim().toLowerCase()));
  if (!u) throw await ctx.appError('USER_NOT_FOUND', { email: user });
  return u.id;
}

export const members: Record<string, Command> = {
  list: {
    usage: 'members list <homeId>',
    summary: "list a home's members and their roles",
    maxPositionals: 1,
    run: async (ctx, a) => {
      const homeId = intArg(a.positionals[0], '<homeId>');
      return (await home()).listMembers({ deps: ctx.deps, caller: await homeAdmin(ctx, homeId), input: { homeId } });
    },
  },
  add: {
    usage: `members add <homeId> <userId|email> ${ROLE}`,
    summary: 'make a user of the project a member of the home (role member by default)',
    maxPositionals: 2,
    options: { role: { type: 'string' } },
    run: async (ctx, a) => {
      const homeId = intArg(a.positionals[0], '<homeId>');
      const caller = await homeAdmin(ctx, homeId);
      const userId = await userIdOf(ctx, homeId, stringArg(a.positionals[1], '<userId|email>'));
      return (await home()).addMember({ deps: ctx.deps, caller, input: { homeId, body: { userId, role: roleOf(str(a, 'role')) } } });
    },
  },
  'set-role': {
    usage: 'members set-role <homeId> <userId|email> <owner|member>',
    summary: "change a member's role",
    maxPositionals: 3,
    run: async (ctx, a) => {
      const homeId = intArg(a.positionals[0], '<homeId>');
      const caller = await homeAdmin(ctx, homeId);
      const userId = await userIdOf(ctx, homeId, stringArg(a.positionals[1], '<userId|email>'));
      const role = stringArg(a.positionals[2], '<owner|member>');
      // set-role changes a member; it does not add one (that is `members add`); adding again never
      // changes a role (docs/api.md#homes-and-members), so this is PATCH's verb
      if (!(await ctx.deps.store.members.get(homeId, userId)))
        throw await ctx.appError('USER_NOT_FOUND', { userId, homeId, message: 'not a member of this home' });
      return (await home()).updateMember({ deps: ctx.deps, caller, input: { homeId, userId, body: { role } } });
    },
  },
  remove: {
    usage: 'members remove <homeId> <userId|email>',
    summary: 'remove a member from the home',
    maxPositionals: 2,
    run: async (ctx, a) => {
      const homeId = intArg(a.positionals[0], '<homeId>');
      const caller = await homeAdmin(ctx, homeId);
      const userId = await userIdOf(ctx, homeId, stringArg(a.positionals[1], '<userId|email>'));
      await (await home()).removeMember({ deps: ctx.deps, caller, input: { homeId, userId } });
      return { removed: { homeId, userId } };
    },
  },
};
