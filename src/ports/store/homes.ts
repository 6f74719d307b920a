// Homes and their members (docs/concepts.md): the unit of access for users.
import type { Page, Paged } from './page.js';

export interface HomeRow {
  id: number;
  projectId: number;
  name: string;
  creationTime: string;
}

export type HomeRole = 'owner' | 'member';
export interface MemberRow {
  homeId: number;
  userId: number;
  role: HomeRole;
  creationTime: string;
}

export interface HomeRepo {
  create(h: Omit<HomeRow, 'id'>): Promise<HomeRow>;
  get(id: number): Promise<HomeRow | undefined>;
  list(f: { projectId?: number; userId?: number }, page: Page): Promise<Paged<HomeRow>>;
  update(id: number, patch: { name?: string }): Promise<void>;
  delete(id: number): Promise<boolean>;
}

export interface MemberRepo {
  upsert(m: MemberRow): Promise<void>;
  get(homeId: number, userId: number): Promise<MemberRow | undefined>;
  list(homeId: number): Promise<MemberRow[]>;
  homesOf(userId: number): Promise<number[]>;
  delete(homeId: number, userId: number): Promise<boolean>;
}
