// Projects, keys, users and devices. Each command calls the domain verb the HTTP API uses, as an
// admin key of the project, so validation, logging and rules are the API's.
import { type Command, UsageError, all, intArg, str, stringArg } from './types.js';

// the verbs load on demand: `--help` and usage errors answer without loading the domain
const project = () => import('../../src/domain/project/index.js');
const user = () => import('../../src/domain/user/index.js');
const device = () => import('../../src/domain/device/index.js');

const scopesOf = (s: string | undefined) =>
  (s ?? 'admin')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export const projects: Record<string, Command> = {
  list: { usage: 'projects list', summary: 'list every project', maxPositionals: 0, run: async ({ deps }) => (await project()).listProjects({ deps }) },
  create: {
    usage: 'projects create <name>',
    summary: 'create a project with device class `default` (then: keys create <projectId>)',
    maxPositionals: 1,
    run: async ({ deps }, a) => (await project()).createProject({ deps, input: { body: { name: stringArg(a.positionals[0], '<name>') } } }),
  },
};

export const keys: Record<string, Command> = {
  list: {
    usage: 'keys list <projectId>',
    summary: "list a project's API keys (never their secrets)",
    maxPositionals: 1,
    columns: ['id', 'name', 'scopes', 'creationTime'],
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      return (await project()).listApiKeys({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input: { projectId } });
    },
  },
  create: {
    usage: 'keys create <projectId> [--name <name>] [--scopes admin|devices,commands,...]',
    summary: 'create a project API key and print its secret `key` (shown once); default name admin-cli, scopes admin',
    maxPositionals: 1,
    options: { name: { type: 'string' }, scopes: { type: 'string' } },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const body = { name: str(a, 'name') ?? 'admin-cli', scopes: scopesOf(str(a, 'scopes')) };
      return (await project()).createApiKey({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input: { projectId, body } });
    },
  },
  revoke: {
    usage: 'keys revoke <keyId>',
    summary: 'revoke a project API key (a running server refuses it from its next request)',
    maxPositionals: 1,
    run: async (ctx, a) => {
      const keyId = stringArg(a.positionals[0], '<keyId>');
      const key = await ctx.deps.store.apiKeys.get(keyId);
      if (!key) throw await ctx.appError('KEY_NOT_FOUND', { keyId });
      await (await project()).revokeApiKey({ deps: ctx.deps, caller: await ctx.adminOf(key.projectId), input: { projectId: key.projectId, keyId } });
      return { revoked: keyId };
    },
  },
};

export const users: Record<string, Command> = {
  list: {
    usage: 'users list <projectId> [--search <text>]',
    summary: "list a project's users",
    maxPositionals: 1,
    options: { search: { type: 'string' } },
    columns: ['id', 'email', 'name', 'canCreateDevices', 'creationTime'],
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const caller = await ctx.adminOf(projectId);
      const { listUsers } = await user();
      return all((page) => listUsers({ deps: ctx.deps, caller, input: { filter: { projectId, search: str(a, 'search') }, page } }));
    },
  },
  create: {
    usage: 'users create <projectId> <email> [--name <name>] [--can-create-devices]',
    summary:
      'create a user; the password (at least 8 characters) is read from a prompt without echo, or from stdin when piped ' +
      '(`printf %s "$PW" | npm run admin -- users create 1 a@b.example`), never from the command line; name defaults to the part of the email before @',
    // a third positional is refused with the stdin advice (see run)
    maxPositionals: 3,
    options: { name: { type: 'string' }, 'can-create-devices': { type: 'boolean' } },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const email = stringArg(a.positionals[1], '<email>');
      if (a.positionals[2] !== undefined) throw new UsageError(PASSWORD_ON_ARGV);
      const caller = await ctx.adminOf(projectId);
      const { readSecret } = await import('./secret-input.js');
      const password = await readSecret('password for ' + email);
      const body = { projectId, email, password, name: str(a, 'name') ?? email.split('@')[0], canCreateDevices: a.values['can-create-devices'] === true };
      return (await user()).createUser({ deps: ctx.deps, caller, input: { body } });
    },
  },
};

export const PASSWORD_ON_ARGV =
  'passwords are not taken on the command line (shell history and `ps` would show them): type it at the prompt, or pipe it on stdin';

export const devices: Record<string, Command> = {
  list: {
    usage: 'devices list <projectId>',
    summary: "list a project's devices, with their apiKey and claimCode",
    maxPositionals: 1,
    columns: ['id', 'name', 'deviceClass', 'homeId', 'tag', 'isConnected', 'apiKey'],
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const caller = await ctx.adminOf(projectId);
      const { listDevices } = await device();
      return all((page) => listDevices({ deps: ctx.deps, caller, input: { filter: { projectId }, page } }));
    },
  },
  create: {
    usage: 'devices create <projectId> [--class <deviceClass>] [--name <name>]',
    summary: 'create a pre-provisioned device and print it with its apiKey and claimCode; class defaults to `default`',
    maxPositionals: 1,
    options: { class: { type: 'string' }, name: { type: 'string' } },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const body = { projectId, deviceClass: str(a, 'class') ?? 'default', name: str(a, 'name') };
      return (await device()).addDeviceHome({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input: { body } });
    },
  },
  import: {
    usage: 'devices import <projectId> <file> --out <file>',
    summary:
      'create devices from a CSV file (header row: name,class[,tag,homeId,description]) or JSON lines, in batches; the whole file is checked first and a bad line imports nothing; each new id, apiKey and claimCode is written once to --out (mode 0600, never overwritten)',
    maxPositionals: 2,
    options: { out: { type: 'string' } },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const file = stringArg(a.positionals[1], '<file>');
      const out = str(a, 'out');
      if (!out) throw new UsageError("missing --out <file>: where the new devices' keys are written (once)");
      return (await import('./bulk-devices.js')).importDevices(ctx, projectId, file, out);
    },
  },
  export: {
    usage: 'devices export <projectId> [--format jsonl|csv]',
    summary: "print a project's devices (id, name, class, tag, homeId, description, creationTime) as JSON lines or CSV, without keys",
    maxPositionals: 1,
    options: { format: { type: 'string' } },
    run: async (ctx, a) => (await import('./bulk-devices.js')).exportDevices(ctx, intArg(a.positionals[0], '<projectId>'), str(a, 'format') ?? 'jsonl'),
  },
  delete: {
    usage: 'devices delete <deviceId>',
    summary:
      'delete a device: its record, KV store, log requests, outbox commands, rollout entries and certificates (refused while it uploads a log); in cluster mode its live connections close at once',
    maxPositionals: 1,
    run: async (ctx, a) => {
      const deviceId = intArg(a.positionals[0], '<deviceId>');
      const row = await ctx.deps.store.devices.get(deviceId);
      if (!row) throw await ctx.appError('DEVICE_NOT_FOUND', { deviceId });
      // its DEVICE_IN_USE checks and clean-ups come in Deps (src/roles/deps.ts), as the API's do
      const { deleteDevice } = await device();
      await deleteDevice({ deps: ctx.deps, caller: await ctx.adminOf(row.projectId), input: { deviceId } });
      return { deleted: deviceId };
    },
  },
};
