// Fixtures written straight through the Store port, so route tests do not depend on the registry
// routes (devices, homes, users, keys): each seed writes exactly what those routes would.
import type { AccessLogRow, Store, DeviceRow, HomeRow, UserRow, HomeRole } from '../../src/ports/store.js';
import { hashToken } from '../../src/domain/auth/tokens.js';
import type { Scope } from '../../src/domain/caller.js';
import type { Sealer } from '../../src/domain/crypto/sealer.js';
import { generateToken, randomId } from './credentials.js';

export interface SeedDeps {
  store: Store;
  sealer: Sealer;
}

const now = () => new Date().toISOString();

/** a device with a fresh API key (hash for lookup, sealed copy for read-back, docs/api.md#credentials) */
export async function seedDevice(
  deps: SeedDeps,
  o: { projectId?: number; homeId?: number | null; deviceClass?: string; name?: string; tag?: string } = {},
): Promise<{ device: DeviceRow; key: string }> {
  const key = generateToken('dk.');
  const device = await deps.store.devices.create({
    projectId: o.projectId ?? 1,
    deviceClass: o.deviceClass ?? 'default',
    homeId: o.homeId ?? null,
    name: o.name ?? null,
    description: null,
    tag: o.tag ?? null,
    apiKeyHash: hashToken(key),
    apiKeySealed: deps.sealer.seal(key),
    claimCodeHash: null,
    claimCodeSealed: null,
    claimExpirationTime: null,
    claimTime: null,
    creationTime: now(),
    bundleInstalled: null,
    bundleInstallTime: null,
    channel: null,
  });
  return { device, key };
}

export async function seedHome(deps: SeedDeps, o: { projectId?: number; name?: string } = {}): Promise<HomeRow> {
  return deps.store.homes.create({ projectId: o.projectId ?? 1, name: o.name ?? 'Home', creationTime: now() });
}

/** a user with a live session token; a member (or owner) of `homeId` when given */
export async function seedUser(
  deps: SeedDeps,
  o: { projectId?: number; homeId?: number; role?: HomeRole; canCreateDevices?: boolean } = {},
): Promise<{ user: UserRow; token: string }> {
  const projectId = o.projectId ?? 1;
  const user = await deps.store.users.create({
    projectId,
    email: `${randomId(6)}@example.test`,
    name: 'Test user',
    passwordHash: 'unused',
    canCreateDevices: o.canCreateDevices ?? false,
    creationTime: now(),
  });
  const token = generateToken('ut.');
  await deps.store.sessions.create({
    tokenHash: hashToken(token),
    userId: user.id,
    projectId,
    creationTime: now(),
    expirationTime: new Date(Date.now() + 3600_000).toISOString(),
  });
  if (o.homeId !== undefined) await deps.store.members.upsert({ homeId: o.homeId, userId: user.id, role: o.role ?? 'member', creationTime: now() });
  return { user, token };
}

/** a project API key with the given scopes */
export async function seedKey(deps: SeedDeps, o: { projectId?: number; scopes?: Scope[]; name?: string } = {}): Promise<{ id: string; key: string }> {
  const key = generateToken('pk.');
  const id = randomId();
  await deps.store.apiKeys.create({
    id,
    projectId: o.projectId ?? 1,
    name: o.name ?? 'test key',
    scopes: o.scopes ?? ['admin'],
    keyHash: hashToken(key),
    creationTime: now(),
  });
  return { id, key };
}

/** a second project with its `default` class and an admin key */
export async function seedProject(deps: SeedDeps): Promise<{ projectId: number; adminKey: string }> {
  const p = await deps.store.projects.create({ name: `Project ${randomId(4)}`, creationTime: now() });
  await deps.store.deviceClasses.create({ projectId: p.id, id: 'default', name: 'Default', description: null, creationTime: now() });
  const { key } = await seedKey(deps, { projectId: p.id, scopes: ['admin'], name: 'admin' });
  return { projectId: p.id, adminKey: key };
}

/** access-log row number n: its own path, latency and millisecond (rows list newest first) */
export const accessLogRow = (n: number, projectId = 1): AccessLogRow => ({
  projectId,
  clientIp: '10.0.0.1',
  latency: 1000 + n,
  method: 'GET',
  path: `/r/${n}`,
  statusCode: 200,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
});
