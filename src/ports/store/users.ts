// Users of a project and their sign-in sessions (docs/concepts.md).
import type { Page, Paged } from './page.js';

export interface UserRow {
  id: number;
  projectId: number;
  email: string;
  name: string;
  passwordHash: string;
  canCreateDevices: boolean;
  /** docs/concepts.md#accounts: the email address is verified (true from the start where the project does not verify) */
  verified: boolean;
  creationTime: string;
}

/** docs/concepts.md#accounts: the two single-use codes a user may hold, one of each at most */
export type AccountCodePurpose = 'verify' | 'reset';

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
  /** `verified` absent: true */
  create(u: Omit<UserRow, 'id' | 'verified'> & { verified?: boolean }): Promise<UserRow>;
  get(id: number): Promise<UserRow | undefined>;
  /** the row when a read cache holds it and may serve it now (else undefined: ask get) */
  peek?(id: number): UserRow | undefined;
  getByEmail(projectId: number, email: string): Promise<UserRow | undefined>;
  list(f: { projectId: number; search?: string }, page: Page): Promise<Paged<UserRow>>;
  update(id: number, patch: Partial<Pick<UserRow, 'name' | 'email' | 'passwordHash' | 'canCreateDevices' | 'verified'>>): Promise<void>;
  /** replaces the user's code of that purpose (a hash only), or drops it (null) */
  setCode(id: number, purpose: AccountCodePurpose, code: { hash: string; expirationTime: string } | null): Promise<void>;
  /**
   * uses the code up: true when the user holds a code of that purpose with this hash that
   * expires after `now`, and it is dropped in the same statement (so it works once, even when
   * two requests race)
   */
  takeCode(id: number, purpose: AccountCodePurpose, hash: string, now: string): Promise<boolean>;
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
