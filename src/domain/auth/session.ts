// User sessions (docs/concepts.md): sign in with project, email and password for a `ut.` token; read
// and end the caller's own session. A failed sign-in never says which part was wrong, and takes
// as long for an unknown email as for a wrong password. Failed sign-ins back off per account and
// address, per address, and far later per account from everywhere (throttle.ts throttledSignIn,
// docs/api.md#sign-in-throttling); the `appId` given at sign-in is kept with the session.
import * as v from 'valibot';
import type { Body, ClientIp, Deps, StoreOf, SystemArgs, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { IdSchema, parseInput, TimeSchema } from '../validate.js';
import type { Caller } from '../caller.js';
import { requireCaller } from './access.js';
import { hashPassword, verifyPassword } from './password.js';
import { hashToken } from './tokens.js';
import { throttledSignIn, type SignInLanes } from './throttle.js';
import { FormTextSchema } from '../validate.js';

export const LoginBodySchema = v.object({
  projectId: IdSchema,
  email: v.pipe(v.string('email must be a string'), v.trim(), v.toLowerCase(), v.maxLength(254, 'email is too long')),
  password: v.pipe(FormTextSchema('password must be a string'), v.maxLength(1024, 'password is too long')),
  /** the app signing in (MODE's app library sends it); kept with the session */
  appId: v.optional(v.pipe(v.union([v.string(), v.number()], 'appId must be a string'), v.transform(String), v.maxLength(128, 'appId is too long'))),
});
export const LoginResponseSchema = v.object({ userId: v.number(), token: v.string(), expirationTime: TimeSchema });
export const SessionSchema = v.object({
  userId: v.number(),
  projectId: v.number(),
  appId: v.optional(v.string()),
  creationTime: TimeSchema,
  expirationTime: TimeSchema,
});
export type Session = v.InferOutput<typeof SessionSchema>;

// a real hash to compare against when the email is unknown, so both failures cost one scrypt
let decoy: Promise<string> | undefined;

/** `ip`: the client's address, which the throttle's lanes are mostly per */
export async function login({
  deps,
  input: { body, ip },
}: SystemArgs<Pick<Deps, 'clock' | 'random' | 'sessionTtlSeconds' | 'authThrottle'> & StoreOf<'sessions' | 'users'>, Body & ClientIp>): Promise<
  v.InferOutput<typeof LoginResponseSchema>
> {
  const b = parseInput(LoginBodySchema, body);
  const address = ip ?? 'unknown';
  const lanes: SignInLanes = {
    pair: { key: `login:${b.projectId}:${b.email}@${address}`, policy: 'account' },
    client: { key: `login-ip:${address}`, policy: 'client' },
    account: { key: `login:${b.projectId}:${b.email}`, policy: 'accountGlobal' },
  };
  const user = await throttledSignIn(deps.authThrottle, lanes, ['AUTHORIZATION_REQUIRED'], () => checkPassword(deps, b));
  const token = deps.random.token('ut.');
  const now = deps.clock.now();
  const expirationTime = new Date(now.getTime() + deps.sessionTtlSeconds * 1000).toISOString();
  await deps.store.sessions.create({
    tokenHash: hashToken(token),
    userId: user.id,
    projectId: user.projectId,
    appId: b.appId ?? null,
    creationTime: now.toISOString(),
    expirationTime,
  });
  return { userId: user.id, token, expirationTime };
}

async function checkPassword(deps: StoreOf<'users'>, b: v.InferOutput<typeof LoginBodySchema>) {
  const user = await deps.store.users.getByEmail(b.projectId, b.email);
  decoy ??= hashPassword('decoy password, never valid');
  const ok = await verifyPassword(b.password, user?.passwordHash ?? (await decoy));
  if (!user || !ok) throw new AppError('AUTHORIZATION_REQUIRED', { message: 'invalid email or password' });
  return user;
}

function sessionCaller(caller: Caller): Extract<Caller, { type: 'user' }> {
  requireCaller(caller);
  if (caller.type !== 'user') throw new AppError('PERMISSION_DENIED', { required: 'a user token' });
  return caller;
}

export async function getSession({ deps, caller }: VerbArgs<StoreOf<'sessions'>>): Promise<Session> {
  const u = sessionCaller(caller);
  const s = await deps.store.sessions.getByHash(u.tokenHash);
  if (!s) throw new AppError('INVALID_TOKEN');
  const out: Session = { userId: s.userId, projectId: s.projectId, creationTime: s.creationTime, expirationTime: s.expirationTime };
  if (s.appId) out.appId = s.appId;
  return out;
}

/** sign out: the token stops working here at once, and live streams opened with it close */
export async function logout({ deps, caller }: VerbArgs<Pick<Deps, 'bus'> & StoreOf<'sessions'>>): Promise<void> {
  const u = sessionCaller(caller);
  await deps.store.sessions.delete(u.tokenHash);
  await deps.bus.publish('revoke', { kind: 'session', tokenHash: u.tokenHash });
}
