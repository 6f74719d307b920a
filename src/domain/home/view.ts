import type { HomeRow, MemberRow } from '../../ports/store.js';
import type { Home, Member } from './schemas.js';

export const homeView = (h: HomeRow): Home => ({ id: h.id, projectId: h.projectId, name: h.name, creationTime: h.creationTime });
export const memberView = (m: MemberRow): Member => ({ homeId: m.homeId, userId: m.userId, role: m.role, creationTime: m.creationTime });
