// The admin CLI as an operator runs it (`npm run admin -- ...`): a child process on a temp data
// directory, offline; then the server started on the same directory accepts what it made (the
// key, and the device key it sealed with the shared secret).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { startHearth, type Hearth } from '../../src/main.js';
import { createRedisBus } from '../../src/adapters/redis/bus.js';
import type { BusMessages } from '../../src/ports/bus.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { REDIS_URL, redisFixture } from '../helpers/redis.js';
import { cli, withoutHearthSettings, type CliRun } from '../helpers/admin-cli.js';
import { MIN_WAIT_MS } from '../helpers/wait.js';

// each run is a fresh `node --import tsx` process, as `npm run admin` starts it (seconds on a busy
// 2-core machine)
const SLOW = { timeout: 600_000 };

const json = (r: CliRun) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** `--json` added: the answer as the CLI prints it for scripts */
const jsonCli = (env: () => Record<string, string>, stdin?: string) => {
  const run = cli(env, stdin);
  return async (...args: string[]) => json(await run(...args, '--json'));
};

describe('admin CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  const run = cli(() => env);
  const j = jsonCli(() => env);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-cli-'));
    env = { ...withoutHearthSettings(), HEARTH_DATA_DIR: dir };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints usage for --help, for a group and for a command', SLOW, async () => {
    const all = await run('--help');
    expect(all.code).toBe(0);
    for (const c of [
      'projects list',
      'projects create <name>',
      'keys create <projectId>',
      'keys revoke <keyId>',
      'users create <projectId> <email>',
      'devices create <projectId>',
      'devices delete <deviceId>',
      'homes create <projectId> <name>',
      'members set-role <homeId>',
      'modules create <projectId> <moduleId>',
      'backup <file>',
      'restore <file>',
    ]) {
      expect(all.stdout).toContain(c);
    }
    const one = await run('devices', 'create', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^usage: npm run admin -- devices create <projectId> \[--class <deviceClass>\] \[--name <name>\]/);
  });

  it('creates a project, a key, a user and a device offline, and lists them', SLOW, async () => {
    const project = await j('projects', 'create', 'Acme');
    expect(project).toMatchObject({ id: 1, name: 'Acme' });
    expect((await j('projects', 'list')).map((p: any) => p.name)).toEqual(['Acme']);
    const key = await j('keys', 'create', '1', '--name', 'ops', '--scopes', 'devices,users');
    expect(key).toMatchObject({ projectId: 1, name: 'ops', scopes: ['devices', 'users'], key: expect.stringMatching(/^pk\./) });
    // the password arrives on stdin (piped), never in argv
    const user = await jsonCli(() => env, 'long password\n')('users', 'create', '1', 'Op@Example.com', '--can-create-devices');
    expect(user).toMatchObject({ email: 'op@example.com', name: 'Op', canCreateDevices: true });
    const device = await j('devices', 'create', '1', '--name', 'lamp');
    expect(device).toMatchObject({ projectId: 1, deviceClass: 'default', name: 'lamp', apiKey: expect.stringMatching(/^dk\./), claimCode: expect.any(String) });
    expect((await j('devices', 'list', '1')).map((d: any) => d.apiKey)).toEqual([device.apiKey]);
    // without --json: a table for people
    const table = await run('devices', 'list', '1');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+deviceClass/);
    expect(table.stdout).toContain(device.apiKey);
    const keys = await j('keys', 'list', '1');
    expect(keys.map((k: any) => k.name)).toEqual(['ops']);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);

    // the server on the same data accepts the key and reads back the device key the CLI sealed
    const config = loadConfig({ HEARTH_DATA_DIR: dir, HEARTH_HTTP_PORT: '0', HEARTH_MQTT_PORT: '0', HEARTH_HOST: '127.0.0.1', HEARTH_LOG_LEVEL: 'silent' });
    let hearth: Hearth | undefined;
    try {
      hearth = await startHearth(config);
      expect(hearth.adminKey).toBeUndefined();
      const base = `http://127.0.0.1:${hearth.httpPort}`;
      const r = await fetch(`${base}/devices/${device.id}`, { headers: { authorization: `ModeCloud ${key.key}` } });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { apiKey: string }).apiKey).toBe(device.apiKey);
      const me = await fetch(`${base}/auth`, { headers: { authorization: `ModeCloud ${device.apiKey}` } });
      expect(await me.json()).toEqual({ type: 'device', deviceId: device.id, projectId: 1 });
      const login = await fetch(`${base}/auth/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: 1, email: 'op@example.com', password: 'long password' }),
      });
      expect(login.status).toBe(200);
    } finally {
      await hearth?.close();
    }

    const revoked = await j('keys', 'revoke', key.id);
    expect(revoked).toEqual({ revoked: key.id });
    expect(await j('keys', 'list', '1')).toEqual([]);
  });

  it('manages homes, members, modules and deletes a device', SLOW, async () => {
    const p = await j('projects', 'create', 'Homes');
    const user = await jsonCli(() => env, 'long password\n')('users', 'create', String(p.id), 'owner@example.com');
    const h = await j('homes', 'create', String(p.id), 'Flat 3');
    expect(h).toMatchObject({ projectId: p.id, name: 'Flat 3' });
    expect((await j('homes', 'list', String(p.id))).map((x: any) => x.id)).toEqual([h.id]);
    expect(await j('members', 'add', String(h.id), 'owner@example.com')).toMatchObject({ homeId: h.id, userId: user.id, role: 'member' });
    expect(await j('members', 'set-role', String(h.id), String(user.id), 'owner')).toMatchObject({ role: 'owner' });
    expect(await j('members', 'list', String(h.id))).toEqual([expect.objectContaining({ userId: user.id, role: 'owner' })]);
    expect((await j('homes', 'list', String(p.id), '--user', String(user.id))).map((x: any) => x.id)).toEqual([h.id]);
    expect(await j('members', 'remove', String(h.id), String(user.id))).toEqual({ removed: { homeId: h.id, userId: user.id } });
    expect(await j('members', 'list', String(h.id))).toEqual([]);

    // a loopback target, allowed as the server's own setting allows it (refused by default: below)
    const local = jsonCli(() => ({ ...env, HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }));
    const m = await local('modules', 'create', String(p.id), 'alerts', '--event-url', 'http://127.0.0.1:9/in', '--subscribe', 'alarm', '--subscribe', 'smoke');
    expect(m).toMatchObject({ id: 'alerts', eventWebhook: { url: 'http://127.0.0.1:9/in', subscriptions: 'alarm\nsmoke', key: expect.any(String) } });
    const listed = await j('modules', 'list', String(p.id));
    expect(listed.map((x: any) => x.id)).toEqual(['alerts']);
    expect(JSON.stringify(listed)).not.toContain(m.eventWebhook.key);
    expect(await j('modules', 'delete', String(p.id), 'alerts')).toEqual({ deleted: 'alerts' });
    expect(await j('modules', 'list', String(p.id))).toEqual([]);

    const d = await j('devices', 'create', String(p.id));
    expect(await j('devices', 'delete', String(d.id))).toEqual({ deleted: d.id });
    expect(await j('devices', 'list', String(p.id))).toEqual([]);
    expect(await j('homes', 'delete', String(h.id))).toEqual({ deleted: h.id });
    expect(await j('homes', 'list', String(p.id))).toEqual([]);
  });

  it('refuses a password on the command line, before it is used', SLOW, async () => {
    for (const args of [
      ['users', 'create', '1', 'x@example.com', '--password', 'long password'],
      ['users', 'create', '1', 'x@example.com', '--password=long password'],
      ['users', 'create', '1', 'x@example.com', 'long password'],
    ]) {
      const r = await cli(() => env, 'long password\n')(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/passwords are not taken on the command line.*pipe it on stdin/);
    }
    // positive control: the same user from stdin exists only now
    expect((await j('users', 'list', '1', '--search', 'x@example.com')).length).toBe(0);
    expect(await jsonCli(() => env, 'long password\n')('users', 'create', '1', 'x@example.com')).toMatchObject({ email: 'x@example.com' });
  });

  it('answers errors as JSON on stderr with --json', SLOW, async () => {
    const r = await run('devices', 'create', '42', '--json');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ reason: 'PROJECT_NOT_FOUND', data: { projectId: 42 } });
    const u = await run('devices', 'create', '--json', '--frob');
    expect(JSON.parse(u.stderr)).toEqual({ reason: 'USAGE_ERROR', data: { message: expect.stringContaining("Unknown option '--frob'") } });
  });

  it('reports errors on stderr with exit code 2', SLOW, async () => {
    const cases: [string[], RegExp][] = [
      [[], /missing command/],
      [['frob'], /unknown command "frob"/],
      [['devices'], /missing devices subcommand/],
      [['devices', 'create'], /missing <projectId>/],
      [['devices', 'create', 'one'], /<projectId> must be a positive integer/],
      [['devices', 'create', '42'], /PROJECT_NOT_FOUND/],
      [['devices', 'create', '1', '--class', 'toaster'], /UNKNOWN_DEVICE_CLASS/],
      [['keys', 'create', '1', '--scopes', 'root'], /INVALID_PARAMETERS/],
      [['keys', 'create', '1', '--name'], /Option '--name <value>' argument missing/],
      [['keys', 'list', '1', '2'], /unexpected argument "2"/],
      [['keys', 'revoke', 'nope'], /KEY_NOT_FOUND/],
      [['homes', 'delete', '99'], /HOME_NOT_FOUND/],
      [['members', 'set-role', '999', '1', 'owner'], /HOME_NOT_FOUND/],
      [['modules', 'create', '1', 'x'], /INVALID_PARAMETERS/],
      [['modules', 'create', '1', 'hooks', '--event-url', 'http://127.0.0.1:9/in'], /INVALID_PARAMETERS.*eventWebhook\.url.*TARGET_NOT_ALLOWED/],
      [['users', 'create', '1', 'y@example.com'], /password must be at least 8 characters/],
      [['users', 'create', '1', 'z@example.com'], /no password for z@example.com given/],
    ];
    const stdinOf = (args: string[]) => (args.includes('y@example.com') ? 'short\n' : '');
    for (const [args, message] of cases) {
      const r = await cli(() => env, stdinOf(args))(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });
});

// Cluster mode: the CLI works on the cluster's PostgreSQL schema and publishes on its Redis bus,
// so a key it revokes has its live connections closed by every node, as an API revocation does
// (the nodes' side of that is tested with the API's revocations).
describe.skipIf(!testDatabaseUrl || !REDIS_URL)('admin CLI in cluster mode', () => {
  const schema = freshSchemaName();
  let dir: string;
  let redis: Awaited<ReturnType<typeof redisFixture>>;
  let env: Record<string, string>;
  const run = cli(() => env);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-cli-cluster-'));
    redis = await redisFixture();
    env = {
      ...withoutHearthSettings(),
      HEARTH_DATA_DIR: dir,
      HEARTH_DATABASE_URL: testDatabaseUrl!,
      HEARTH_DATABASE_SCHEMA: schema,
      HEARTH_REDIS_URL: REDIS_URL!,
      HEARTH_REDIS_PREFIX: redis.prefix,
      HEARTH_SECRET: 'cli-cluster-test-secret-0123456789',
    };
  });
  afterAll(async () => {
    await redis?.cleanup();
    await dropSchema(testDatabaseUrl!, schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('announces a key it revokes on the cluster bus', SLOW, async () => {
    expect(json(await run('projects', 'create', 'Acme', '--json'))).toMatchObject({ id: 1 });
    const key = json(await run('keys', 'create', '1', '--name', 'ops', '--json'));
    const bus = await createRedisBus({ client: redis.client, keys: redis.keys });
    try {
      const heard: BusMessages['revoke'][] = [];
      bus.subscribe('revoke', (m) => heard.push(m));
      await bus.ready?.();
      // a key id may begin with '-': after '--' it is never read as an option
      expect(json(await run('keys', 'revoke', '--json', '--', key.id))).toEqual({ revoked: key.id });
      await expect.poll(() => heard, { timeout: MIN_WAIT_MS }).toEqual([{ kind: 'projectKey', keyId: key.id }]);
    } finally {
      await bus.close();
    }
  });

  it('says so when Redis cannot be reached, with exit code 2', SLOW, async () => {
    const r = await cli(() => ({ ...env, HEARTH_REDIS_URL: 'redis://127.0.0.1:1' }))('projects', 'list');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/HEARTH_REDIS_URL: cannot reach Redis at redis:\/\/127.0.0.1:1/);
  });
});
