// The real server in-process (startHearth) on free loopback ports, with a temp data directory and
// a seeded device, for tests that talk to it over real sockets (MQTT.js, ws, mosquitto_*).
// Fixtures are seeded straight through deps.store (the registry routes are not what these tests
// are about). Cleans up after itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { startHearth, type Hearth } from '../../src/main.js';
import { hashToken } from '../../src/domain/auth/tokens.js';
import type { DeviceRow } from '../../src/ports/store.js';
import { seedDevice as seedStoreDevice } from './store-seed.js';
import { generateToken, randomId } from './credentials.js';

export interface SeededDevice {
  id: number;
  key: string;
  projectId: number;
  deviceClass: string;
  homeId: number | null;
}

export interface TestHearth {
  hearth: Hearth;
  deps: Hearth['deps'];
  httpPort: number;
  mqttPort: number;
  adminKey: string;
  /** `http://127.0.0.1:<port>` */
  httpUrl: string;
  /** `ws://127.0.0.1:<port>` */
  wsUrl: string;
  dataDir: string;
  /** a device of project 1, class `default`, in no home */
  device: SeededDevice;
  seedDevice(opts?: { homeId?: number | null; projectId?: number; deviceClass?: string }): Promise<SeededDevice>;
  seedHome(opts?: { projectId?: number; name?: string }): Promise<number>;
  /** a user (member of the homes given) with a live session token */
  seedUser(opts?: { homeIds?: number[]; projectId?: number }): Promise<{ userId: number; token: string; tokenHash: string }>;
  seedProjectKey(scopes: string[], projectId?: number): Promise<{ id: string; key: string }>;
  /** a real HTTP request; JSON in and out */
  http(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** the device row as stored now */
  deviceRow(id: number): Promise<DeviceRow | undefined>;
  close(): Promise<void>;
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

function merge<T>(base: T, over: DeepPartial<T> | undefined): T {
  if (!over) return base;
  const out: any = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null ? merge(out[k], v as any) : v;
  }
  return out;
}

/**
 * `dataDir`: reuse a data directory (a restart); it is then left in place on close, for the
 * caller to remove.
 */
export async function startTestHearth(overrides?: DeepPartial<Config>, opts: { dataDir?: string } = {}): Promise<TestHearth> {
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  const ownDir = !opts.dataDir;
  const base = loadConfig({});
  const config = merge<Config>(
    {
      ...base,
      host: '127.0.0.1',
      http: { ...base.http, port: 0 },
      // every test connects from 127.0.0.1: bad credentials are slowed down only a little
      // unless a test is about that (mqtt-bounds.security.test.ts)
      mqtt: { ...base.mqtt, port: 0, authFailureDelayMs: 1, authFailureMaxDelayMs: 20 },
      https: { port: 0 },
      mqtts: { port: 0 },
      dataDir: dir,
      databaseUrl: null,
      redisUrl: null,
      secret: 'test-secret-test-secret-test-secret',
      logLevel: 'silent',
      roles: ['broker', 'api', 'worker'],
      rateLimit: { ...base.rateLimit, enabled: false },
    },
    overrides,
  );
  let hearth: Hearth;
  try {
    hearth = await startHearth(config, pino({ level: config.logLevel }));
  } catch (e) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const { deps } = hearth;
  const store = deps.store;
  const now = () => new Date().toISOString();

  const seedDevice: TestHearth['seedDevice'] = async (o = {}) => {
    const { device: d, key } = await seedStoreDevice(deps, { ...o, name: 'test device' });
    return { id: d.id, key, projectId: d.projectId, deviceClass: d.deviceClass, homeId: d.homeId };
  };

  const seedHome: TestHearth['seedHome'] = async (o = {}) =>
    (await store.homes.create({ projectId: o.projectId ?? 1, name: o.name ?? 'home', creationTime: now() })).id;

  const seedUser: TestHearth['seedUser'] = async (o = {}) => {
    const u = await store.users.create({
      projectId: o.projectId ?? 1,
      email: `u-${randomId(6)}@example.test`,
      name: 'user',
      passwordHash: 'x',
      canCreateDevices: false,
      creationTime: now(),
    });
    for (const homeId of o.homeIds ?? []) await store.members.upsert({ homeId, userId: u.id, role: 'member', creationTime: now() });
    const token = generateToken('ut.');
    const tokenHash = hashToken(token);
    await store.sessions.create({
      tokenHash,
      userId: u.id,
      projectId: u.projectId,
      creationTime: now(),
      expirationTime: new Date(Date.now() + 3600_000).toISOString(),
    });
    return { userId: u.id, token, tokenHash };
  };

  const seedProjectKey: TestHearth['seedProjectKey'] = async (scopes, projectId = 1) => {
    const key = generateToken('pk.');
    const id = randomId();
    await store.apiKeys.create({ id, projectId, name: `key ${scopes.join(',')}`, scopes, keyHash: hashToken(key), creationTime: now() });
    return { id, key };
  };

  const httpUrl = `http://127.0.0.1:${hearth.httpPort}`;
  const http: TestHearth['http'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `ModeCloud ${o.token}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(httpUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    hearth,
    deps,
    httpPort: hearth.httpPort,
    mqttPort: hearth.mqttPort,
    adminKey: hearth.adminKey!,
    httpUrl,
    wsUrl: `ws://127.0.0.1:${hearth.httpPort}`,
    dataDir: dir,
    device: await seedDevice(),
    seedDevice,
    seedHome,
    seedUser,
    seedProjectKey,
    http,
    deviceRow: (id) => store.devices.get(id),
    async close() {
      await hearth.close();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
