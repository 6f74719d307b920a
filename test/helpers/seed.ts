// Fixtures for registry tests: a second project with its own key (straight into the store, as no
// HTTP credential can create a project), and users, sessions, homes and devices made through the
// API itself, so every fixture went through the same rules as a client's request.
import { expect } from 'vitest';
import { hashToken } from '../../src/domain/auth/tokens.js';
import { createProject } from '../../src/domain/project/create.js';
import type { TestApi } from './api.js';
import { generateToken, randomId } from './credentials.js';

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

/** a project key with the given scopes, written to the store */
export async function seedKey(t: TestApi, projectId: number, scopes: string[] = ['admin'], name = 'test key'): Promise<{ key: string; keyId: string }> {
  const key = generateToken('pk.');
  const keyId = randomId();
  await t.deps.store.apiKeys.create({ id: keyId, projectId, name, scopes, keyHash: hashToken(key), creationTime: new Date().toISOString() });
  return { key, keyId };
}

/** another project (class `default`) and an admin key of it */
export async function seedProject(t: TestApi, name = 'Other project'): Promise<{ projectId: number; key: string }> {
  const p = await createProject({ deps: t.deps, input: { body: { name } } });
  return { projectId: p.id, key: (await seedKey(t, p.id)).key };
}

export interface SeededUser {
  userId: number;
  email: string;
  password: string;
  token: string;
}

/** a user created with the key, signed in */
export async function seedUser(t: TestApi, opts: { key?: string; projectId?: number; canCreateDevices?: boolean; name?: string } = {}): Promise<SeededUser> {
  const key = opts.key ?? t.adminKey;
  const projectId = opts.projectId ?? 1;
  const email = `user-${unique()}@example.com`;
  const password = 'correct horse battery';
  const created = await t.req('POST', '/users', {
    token: key,
    body: { projectId, email, password, name: opts.name ?? 'Test User', canCreateDevices: opts.canCreateDevices },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const session = await t.req('POST', '/auth/user', { body: { projectId, email, password } });
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  return { userId: created.body.id, email, password, token: session.body.token };
}

/** a home owned by the user (token) */
export async function seedHome(t: TestApi, token: string, name = 'Home'): Promise<number> {
  const r = await t.req('POST', '/homes', { token, body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id;
}

/** adds a user to a home (the token must be an owner's or a project key) */
export async function seedMember(t: TestApi, token: string, homeId: number, userId: number, role: 'owner' | 'member' = 'member'): Promise<void> {
  const r = await t.req('POST', `/homes/${homeId}/members`, { token, body: { userId, role } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

/** a pre-provisioned device made by a project key; the answer carries apiKey and claimCode */
export async function seedDevice(
  t: TestApi,
  opts: { key?: string; projectId?: number; homeId?: number; deviceClass?: string; name?: string; tag?: string; channel?: string } = {},
): Promise<{ id: number; apiKey: string; claimCode: string; [k: string]: unknown }> {
  const { key = t.adminKey, projectId = 1, deviceClass = 'default', ...rest } = opts;
  const r = await t.req('POST', '/devices', { token: key, body: { projectId, deviceClass, ...rest } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** a bundle of the project */
export async function seedBundle(
  t: TestApi,
  opts: { key?: string; projectId?: number; id?: string; deviceClass?: string; channel?: string; components?: unknown[] } = {},
): Promise<string> {
  const { key = t.adminKey, projectId = 1, id = `fw-${unique()}`, deviceClass = 'default', components = [], channel } = opts;
  const r = await t.req('POST', '/bundles', { token: key, body: { id, projectId, deviceClass, channel, components } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return id;
}
