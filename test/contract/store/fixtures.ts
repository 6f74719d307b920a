// Shared pieces of the Store contract: a fresh store per test (cleaned up when the test finishes,
// whatever its outcome), RFC 3339 times, and row builders with unique hashes.
import { onTestFinished } from 'vitest';
import type { NewDevice, Page, ProjectRow, Store, UserRow } from '../../../src/ports/store.js';

export type MakeStore = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/** a store of its own for the running test, closed and removed when the test finishes */
export async function freshStore(make: MakeStore): Promise<Store> {
  const { store, cleanup } = await make();
  onTestFinished(cleanup);
  return store;
}

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0, 0);
/** an RFC 3339 UTC time with milliseconds, `seconds` after a fixed origin */
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

let counter = 0;
/** a value no other call returns in this process */
export const unique = (prefix: string): string => `${prefix}-${++counter}`;

export const all: Page = { skip: 0, limit: 1000 };

export const newProject = (store: Store, name = 'Project'): Promise<ProjectRow> => store.projects.create({ name, creationTime: at(0) });

export function userInput(projectId: number, over: Partial<Omit<UserRow, 'id'>> = {}): Omit<UserRow, 'id'> {
  return {
    projectId,
    email: `${unique('user')}@example.com`,
    name: 'User',
    passwordHash: 'scrypt$hash',
    canCreateDevices: false,
    verified: true,
    creationTime: at(0),
    ...over,
  };
}

export function deviceInput(projectId: number, over: Partial<NewDevice> = {}): NewDevice {
  return {
    projectId,
    deviceClass: 'lamp',
    homeId: null,
    name: null,
    description: null,
    tag: null,
    apiKeyHash: unique('keyhash'),
    apiKeySealed: 'sealed',
    claimCodeHash: null,
    claimCodeSealed: null,
    claimExpirationTime: null,
    claimTime: null,
    creationTime: at(0),
    bundleInstalled: null,
    bundleInstallTime: null,
    channel: null,
    ...over,
  };
}

export const ids = (rows: { id: number }[]): number[] => rows.map((r) => r.id).sort((a, b) => a - b);
