// Users of a project and their sign-in sessions (docs/concepts.md).
import type { Page, Paged } from './page.js';

export interface UserRow {
  id: number;
  projectId: number;
  email: string;
  name: string;
  passwordHash: string;
  canCreateDevices: boolean;
  creationTime: string;
}

export interface SessionRow {
  tokenHash: string;
  userId: number;
  projectId: number;
  /** the app named at sign-in (docs/concepts.md); null or absent when none was */
  appId?: string | null;
  creationTime: string;
  expirationTime: string;
}

export interface UserRepo {
  create(u: Omit<UserRow, 'id'>): Promise<UserRow>;
  get(id: number): Promise<UserRow | undefined>;
  /** the row when a read cache holds it and may serve it now (else undefined: ask get) */
  peek?(id: number): UserRow | undefined;
  getByEmail(projectId: number, email: string): Promise<UserRow | undefined>;
  list(f: { projectId: number; search?: string }, page: Page): Promise<Paged<UserRow>>;
  update(id: number, patch: Partial<Pick<UserRow, 'name' | 'email' | 'passwordHash' | 'canCreateDevices'>>): Promise<void>;
  delete(id: number): Promise<boolean>;
}

export interface SessionRepo {
  create(s: SessionRow): Promise<void>;
  getByHash(tokenHash: string): Promise<SessionRow | undefined>;
  /** the row when a read cache holds it and may serve it now (else undefined: ask getByHash) */
  peekByHash?(tokenHash: string): SessionRow | undefined;
  delete(tokenHash: string): Promise<boolean>;
  /** every session of one user: deleting the user revokes each (bus `revoke` by token hash) */
  listForUser(userId: number): Promise<SessionRow[]>;
  deleteForUser(userId: number): Promise<void>;
}
