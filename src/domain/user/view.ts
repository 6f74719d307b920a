// A user as the wire shows it: never the password hash.
import type { UserRow } from '../../ports/store.js';
import type { User } from './schemas.js';

export const userView = (u: UserRow): User => ({
  id: u.id,
  projectId: u.projectId,
  email: u.email,
  name: u.name,
  canCreateDevices: u.canCreateDevices,
  verified: u.verified,
  creationTime: u.creationTime,
});
