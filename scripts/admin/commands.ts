// The admin CLI's commands. Each one calls the same domain verb the HTTP API uses, as an admin
// key of the project, so validation, logging and rules are the API's.
import type { AdminContext } from './context.js';
import { type Args, UsageError, flag, intArg, stringArg } from './args.js';
import { AppError } from '../../src/domain/errors.js';

// the verbs load on demand: `--help` and usage errors answer without loading the domain
const project = () => import('../../src/domain/project/index.js');
const user = () => import('../../src/domain/user/index.js');
const device = () => import('../../src/domain/device/index.js');

export interface Command {
  usage: string;
  summary: string;
  run(ctx: AdminContext, args: Args): Promise<unknown>;
}

/** every page of a paged list */
async function all<T>(fetch: (page: { skip: number; limit: number }) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const r = await fetch({ skip: out.length, limit: 1000 });
    out.push(...r.items);
    if (r.items.length === 0 || out.length >= r.total) return out;
  }
}

const scopesOf = (s: string | undefined) => (s ?? 'admin').split(',').map((x) => x.trim()).filter(Boolean);

export const COMMANDS: Record<string, Record<string, Command>> = {
  projects: {
    list: { usage: 'projects list', summary: 'list every project', run: async ({ deps }) => (await project()).listProjects({ deps }) },
    create: {
      usage: 'projects create <name>',
      summary: 'create a project with device class `default` (then: keys create <projectId>)',
      run: async ({ deps }, a) => (await project()).createProject({ deps, input: { name: stringArg(a.positionals[0], '<name>') } }),
    },
  },
  keys: {
    list: {
      usage: 'keys list <projectId>',
      summary: "list a project's API keys (never their secrets)",
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        return (await project()).listApiKeys({ deps: ctx.deps, caller: await ctx.adminOf(projectId), projectId });
      },
    },
    create: {
      usage: 'keys create <projectId> [--name <name>] [--scopes admin|devices,commands,...]',
      summary: 'create a project API key and print its secret `key` (shown once); default name admin-cli, scopes admin',
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        const input = { name: flag(a, 'name') ?? 'admin-cli', scopes: scopesOf(flag(a, 'scopes')) };
        return (await project()).createApiKey({ deps: ctx.deps, caller: await ctx.adminOf(projectId), projectId, input });
      },
    },
    revoke: {
      usage: 'keys revoke <keyId>',
      summary: 'revoke a project API key (a running server refuses it from its next request)',
      run: async (ctx, a) => {
        const keyId = stringArg(a.positionals[0], '<keyId>');
        const key = await ctx.deps.store.apiKeys.get(keyId);
        if (!key) throw new AppError('KEY_NOT_FOUND', { keyId });
        await (await project()).revokeApiKey({ deps: ctx.deps, caller: await ctx.adminOf(key.projectId), projectId: key.projectId, keyId });
        return { revoked: keyId };
      },
    },
  },
  users: {
    list: {
      usage: 'users list <projectId> [--search <text>]',
      summary: "list a project's users",
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        const caller = await ctx.adminOf(projectId);
        const { listUsers } = await user();
        return all((page) => listUsers({ deps: ctx.deps, caller, filter: { projectId, search: flag(a, 'search') }, page }));
      },
    },
    create: {
      usage: 'users create <projectId> <email> <password> [--name <name>] [--can-create-devices]',
      summary: 'create a user (password at least 8 characters); name defaults to the part of the email before @',
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        const email = stringArg(a.positionals[1], '<email>');
        const password = stringArg(a.positionals[2], '<password>');
        const input = { projectId, email, password, name: flag(a, 'name') ?? email.split('@')[0], canCreateDevices: a.flags.get('can-create-devices') === true };
        return (await user()).createUser({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input });
      },
    },
  },
  devices: {
    list: {
      usage: 'devices list <projectId>',
      summary: "list a project's devices, with their apiKey and claimCode",
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        const caller = await ctx.adminOf(projectId);
        const { listDevices } = await device();
        return all((page) => listDevices({ deps: ctx.deps, caller, filter: { projectId }, page }));
      },
    },
    create: {
      usage: 'devices create <projectId> [--class <deviceClass>] [--name <name>]',
      summary: 'create a pre-provisioned device and print it with its apiKey and claimCode; class defaults to `default`',
      run: async (ctx, a) => {
        const projectId = intArg(a.positionals[0], '<projectId>');
        const input = { projectId, deviceClass: flag(a, 'class') ?? 'default', name: flag(a, 'name') };
        return (await device()).addDeviceHome({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input });
      },
    },
  },
};

export function usageOf(group?: string, name?: string): string {
  if (group && name && COMMANDS[group]?.[name]) {
    const c = COMMANDS[group][name];
    return `usage: npm run admin -- ${c.usage}\n\n${c.summary}\n`;
  }
  const groups = group && COMMANDS[group] ? [group] : Object.keys(COMMANDS);
  const lines = groups.flatMap((g) => Object.values(COMMANDS[g]).map((c) => `  ${c.usage}\n      ${c.summary}`));
  return [
    `usage: npm run admin -- <command> [--help]`,
    '',
    'Works offline on the server\'s data (HEARTH_DATA_DIR, HEARTH_DATABASE_URL). Prints JSON.',
    '',
    'commands:',
    ...lines,
    '',
  ].join('\n');
}

export function findCommand(args: Args): Command {
  const [group, name] = args.positionals;
  if (!group) throw new UsageError('missing command');
  if (!COMMANDS[group]) throw new UsageError(`unknown command ${JSON.stringify(group)}`);
  if (!name) throw new UsageError(`missing ${group} subcommand: ${Object.keys(COMMANDS[group]).join(' | ')}`);
  const c = COMMANDS[group][name];
  if (!c) throw new UsageError(`unknown command ${JSON.stringify(`${group} ${name}`)}`);
  return c;
}
