// Create a user (docs/concepts.md): a project key with the `users` scope, in its own project; or, with no
// credential at all, the user itself (self-signup, as MODE's app library does) while the
// project's `allowUserSignup` is on. A signup may not ask for `canCreateDevices`, and signups are
// throttled per client IP like failed logins. The email is unique per project; the password is
// kept as a scrypt hash only. docs/concepts.md#accounts: in a project that verifies emails (and a
// server that sends mail) a self-signup starts unverified and is mailed a code; every other user
// is verified from the start.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { hashPassword } from '../auth/password.js';
import { countFailure, rateLimited, refuseWhileWaiting, type Lane } from '../auth/throttle.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { listProjectId } from '../project/access.js';
import { CreateUserBodySchema, type User } from './schemas.js';
import { userView } from './view.js';
import { issueCode } from './account-codes.js';
import type { UserRow } from '../../ports/store.js';

type D = Pick<Deps, 'clock' | 'authThrottle' | 'secret' | 'random' | 'mailer' | 'publicUrl'> & StoreOf<'logs' | 'projects' | 'users'>;
type Parsed = ReturnType<typeof parseBody>;
const parseBody = (body: unknown) => parseInput(CreateUserBodySchema, body);

export async function createUser({ deps, caller, input: { body } }: VerbArgs<D, Body>): Promise<User> {
  if (caller.type === 'nobody') return signUp(deps, caller, body);
  requireCaller(caller);
  const b = parseBody(body);
  listProjectId(caller, b.projectId);
  requireProjectKey(caller, b.projectId, 'users');
  return userView(await insertUser(deps, caller, b));
}

/** POST /users with no credential */
async function signUp(deps: D, caller: Extract<Caller, { type: 'nobody' }>, body: unknown): Promise<User> {
  const b = parseBody(body);
  const project = await deps.store.projects.get(b.projectId);
  // a project that does not exist or does not take signups is not told apart: the request
  // simply lacks a credential
  if (!project?.allowUserSignup)
    throw new AppError('AUTHORIZATION_REQUIRED', { message: 'this project does not allow self-signup; a project key creates users' });
  if (b.canCreateDevices) throw new AppError('PERMISSION_DENIED', { required: 'project key with scope users', fields: ['canCreateDevices'] });
  const t = deps.authThrottle;
  if (t) {
    // every signup counts on the address's lane (mass account creation, email probing)
    const lane: Lane = { key: `signup-ip:${caller.ip ?? 'unknown'}`, policy: 'client' };
    await refuseWhileWaiting(t, [lane]);
    const wait = await countFailure(t, [lane]);
    if (wait > 0) throw rateLimited(wait);
  }
  const verify = project.verifyEmails && deps.mailer !== undefined;
  const u = await insertUser(deps, caller, b, !verify);
  if (verify) await issueCode(deps, u, 'verify');
  return userView(u);
}

async function insertUser(deps: Pick<Deps, 'clock'> & StoreOf<'logs' | 'users'>, caller: Caller, b: Parsed, verified = true): Promise<UserRow> {
  if (await deps.store.users.getByEmail(b.projectId, b.email)) throw new AppError('ALREADY_EXISTS', { fields: ['email'] });
  const u = await deps.store.users.create({
    projectId: b.projectId,
    email: b.email,
    name: b.name,
    passwordHash: await hashPassword(b.password),
    canCreateDevices: b.canCreateDevices ?? false,
    verified,
    creationTime: deps.clock.now().toISOString(),
  });
  const how = caller.type === 'nobody' ? ' by self-signup' : '';
  await writeLog({ deps, input: { projectId: u.projectId, caller, level: 'info', source: 'api', text: `user ${u.id} created${how}` } });
  return u;
}
