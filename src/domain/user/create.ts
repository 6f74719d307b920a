// Create a user (docs/concepts.md): a project key with the `users` scope, in its own project. The email
// is unique per project; the password is kept as a scrypt hash only.
import type { Deps } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { hashPassword } from '../auth/password.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { listProjectId } from '../project/access.js';
import { CreateUserBodySchema, type User } from './schemas.js';
import { userView } from './view.js';

export async function createUser({ deps, caller, input }: { deps: Pick<Deps, 'store' | 'clock'>; caller: Caller; input: unknown }): Promise<User> {
  requireCaller(caller);
  const b = parseInput(CreateUserBodySchema, input);
  listProjectId(caller, b.projectId);
  requireProjectKey(caller, b.projectId, 'users');
  if (await deps.store.users.getByEmail(b.projectId, b.email)) throw new AppError('ALREADY_EXISTS', { fields: ['email'] });
  const u = await deps.store.users.create({
    projectId: b.projectId,
    email: b.email,
    name: b.name,
    passwordHash: await hashPassword(b.password),
    canCreateDevices: b.canCreateDevices ?? false,
    creationTime: deps.clock.now().toISOString(),
  });
  await writeLog(deps, { projectId: u.projectId, caller, level: 'info', source: 'api', text: `user ${u.id} created` });
  return userView(u);
}
