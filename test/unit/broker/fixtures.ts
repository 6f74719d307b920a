// Fixtures for the route tests of commands and events: a test API (app.request, no port) with a
// device in a home, a member of that home and a stranger, seeded through the store.
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice as seedStoreDevice } from '../../helpers/store-seed.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import type { BusMessages } from '../../../src/ports/bus.js';
import { generateToken, randomId } from '../../helpers/credentials.js';

export interface Fixtures {
  t: TestApi;
  device: { id: number; key: string };
  homeId: number;
  member: string;
  stranger: string;
  seedDevice(opts?: { homeId?: number | null; projectId?: number }): Promise<{ id: number; key: string }>;
  seedKey(scopes: string[], projectId?: number): Promise<{ id: string; key: string; name: string }>;
  /** the next bus message on a topic */
  nextOnBus<T extends 'command' | 'event'>(topic: T): Promise<BusMessages[T]>;
}

const now = () => new Date().toISOString();

export async function makeFixtures(): Promise<Fixtures> {
  const t = await makeTestApi();
  const seedDevice: Fixtures['seedDevice'] = async (opts = {}) => {
    const { device: d, key } = await seedStoreDevice(t.deps, opts);
    return { id: d.id, key };
  };
  const seedKey: Fixtures['seedKey'] = async (scopes, projectId = 1) => {
    const key = generateToken('pk.');
    const id = randomId();
    const name = `k-${scopes.join('-')}`;
    await t.deps.store.apiKeys.create({ id, projectId, name, scopes, keyHash: hashToken(key), creationTime: now() });
    return { id, key, name };
  };
  const seedUser = async (homeIds: number[]) => {
    const u = await t.deps.store.users.create({
      projectId: 1,
      email: `${randomId(6)}@x.test`,
      name: 'u',
      passwordHash: 'x',
      canCreateDevices: false,
      creationTime: now(),
    });
    for (const h of homeIds) await t.deps.store.members.upsert({ homeId: h, userId: u.id, role: 'member', creationTime: now() });
    const token = generateToken('ut.');
    await t.deps.store.sessions.create({
      tokenHash: hashToken(token),
      userId: u.id,
      projectId: 1,
      creationTime: now(),
      expirationTime: new Date(Date.now() + 3600_000).toISOString(),
    });
    return token;
  };
  const nextOnBus: Fixtures['nextOnBus'] = (topic) =>
    new Promise((resolve) => {
      const off = t.deps.bus.subscribe(topic, (m) => {
        off();
        resolve(m as never);
      });
    });
  const homeId = (await t.deps.store.homes.create({ projectId: 1, name: 'h', creationTime: now() })).id;
  return { t, device: await seedDevice({ homeId }), homeId, member: await seedUser([homeId]), stranger: await seedUser([]), seedDevice, seedKey, nextOnBus };
}
