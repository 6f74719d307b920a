// The admin CLI as an operator runs it (`npm run admin -- ...`): a child process on a temp data
// directory, offline; then the server started on the same directory accepts what it made (the
// key, and the device key it sealed with the shared secret).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { startHearth, type Hearth } from '../../src/main.js';
import { createRedisBus } from '../../src/adapters/redis/bus.js';
import type { BusMessages } from '../../src/domain/events.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { REDIS_URL, redisFixture } from '../helpers/redis.js';

const ROOT = resolve(import.meta.dirname, '../..');
// each run is a fresh `node --import tsx` process (about 1 to 3 s on a busy 2-core machine)
const SLOW = { timeout: 120_000 };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** the CLI as a child process with exactly these settings (the parent's HEARTH_* do not leak) */
function cli(env: () => Record<string, string>) {
  return (...args: string[]): Promise<Run> =>
    new Promise((res, rej) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', rej);
      child.on('exit', (code) => res({ code, stdout, stderr }));
    });
}

const json = (r: Run) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

const withoutHearthSettings = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_'))) as Record<string, string>;

describe('admin CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  const run = cli(() => env);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-cli-'));
    env = { ...withoutHearthSettings(), HEARTH_DATA_DIR: dir };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints usage for --help, for a group and for a command', SLOW, async () => {
    const all = await run('--help');
    expect(all.code).toBe(0);
    for (const c of ['projects list', 'projects create <name>', 'keys create <projectId>', 'keys revoke <keyId>', 'users create <projectId> <email> <password>', 'devices create <projectId>']) {
      expect(all.stdout).toContain(c);
    }
    const one = await run('devices', 'create', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^usage: npm run admin -- devices create <projectId> \[--class <deviceClass>\] \[--name <name>\]/);
  });

  it('creates a project, a key, a user and a device offline, and lists them', SLOW, async () => {
    const project = json(await run('projects', 'create', 'Acme'));
    expect(project).toMatchObject({ id: 1, name: 'Acme' });
    expect(json(await run('projects', 'list')).map((p: any) => p.name)).toEqual(['Acme']);
    const key = json(await run('keys', 'create', '1', '--name', 'ops', '--scopes', 'devices,users'));
    expect(key).toMatchObject({ projectId: 1, name: 'ops', scopes: ['devices', 'users'], key: expect.stringMatching(/^pk\./) });
    const user = json(await run('users', 'create', '1', 'Op@Example.com', 'long password', '--can-create-devices'));
    expect(user).toMatchObject({ email: 'op@example.com', name: 'Op', canCreateDevices: true });
    const device = json(await run('devices', 'create', '1', '--name', 'lamp'));
    expect(device).toMatchObject({ projectId: 1, deviceClass: 'default', name: 'lamp', apiKey: expect.stringMatching(/^dk\./), claimCode: expect.any(String) });
    expect(json(await run('devices', 'list', '1')).map((d: any) => d.apiKey)).toEqual([device.apiKey]);
    const keys = json(await run('keys', 'list', '1'));
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
      const login = await fetch(`${base}/auth/user`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ projectId: 1, email: 'op@example.com', password: 'long password' }) });
      expect(login.status).toBe(200);
    } finally {
      await hearth?.close();
    }

    const revoked = json(await run('keys', 'revoke', key.id));
    expect(revoked).toEqual({ revoked: key.id });
    expect(json(await run('keys', 'list', '1'))).toEqual([]);
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
      [['keys', 'create', '1', '--name'], /--name needs a value/],
      [['keys', 'revoke', 'nope'], /KEY_NOT_FOUND/],
      [['users', 'create', '1', 'x@example.com', 'short'], /password must be at least 8 characters/],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
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
    expect(json(await run('projects', 'create', 'Acme'))).toMatchObject({ id: 1 });
    const key = json(await run('keys', 'create', '1', '--name', 'ops'));
    const bus = await createRedisBus({ client: redis.client, keys: redis.keys });
    try {
      const heard: BusMessages['revoke'][] = [];
      bus.subscribe('revoke', (m) => heard.push(m));
      await bus.ready?.();
      expect(json(await run('keys', 'revoke', key.id))).toEqual({ revoked: key.id });
      await expect.poll(() => heard).toEqual([{ kind: 'projectKey', keyId: key.id }]);
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
