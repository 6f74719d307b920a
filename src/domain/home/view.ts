import type { HomeRow, MemberRow, UserRow } from '../../ports/store.js';
import type { Home, Member } from './schemas.js';

export const homeView = (h: HomeRow): Home => ({ id: h.id, projectId: h.projectId, name: h.name, creationTime: h.creationTime });
/** a member with its user's name and email (docs/concepts.md); `verified` false: no email verification yet */
export const memberView = (m: MemberRow, u: Pick<UserRow, 'name' | 'email'>): Member => ({
  homeId: m.homeId,
  userId: m.userId,
  name: u.name,
  email: u.email,
  verified: false,
  role: m.role,
  creationTime: m.creationTime,
});
