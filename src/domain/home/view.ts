import type { HomeRow, MemberRow, UserRow } from '../../ports/store.js';
import type { Home, Member } from './schemas.js';

export const homeView = (h: HomeRow): Home => ({ id: h.id, projectId: h.projectId, name: h.name, creationTime: h.creationTime });
/** a member with its user's name, email and whether that is verified (docs/concepts.md#accounts) */
export const memberView = (m: MemberRow, u: Pick<UserRow, 'name' | 'email' | 'verified'>): Member => ({
  homeId: m.homeId,
  userId: m.userId,
  name: u.name,
  email: u.email,
  verified: u.verified,
  role: m.role,
  creationTime: m.creationTime,
});
