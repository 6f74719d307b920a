// User sessions (docs/concepts.md): sign in with project, email and password for a `ut.` token; read
// and end the caller's own session. A failed sign-in never says which part was wrong, and takes
// as long for an unknown email as for a wrong password.
import * as v from 'valibot';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { IdSchema, parseInput } from '../validate.js';
import type { Caller } from './caller.js';
import { requireCaller } from './access.js';
import { hashPassword, verifyPassword } from './password.js';
import { generateToken, hashToken } from './tokens.js';

const Time = v.pipe(v.string(), v.isoTimestamp());

export const LoginBodySchema = v.object({
  projectId: IdSchema,
  email: v.pipe(v.string('email must be a string'), v.trim(), v.toLowerCase(), v.maxLength(254, 'email is too long')),
  password: v.pipe(v.string('password must be a string'), v.maxLength(1024, 'password is too long')),
});
export const LoginResponseSchema = v.object({ userId: v.number(), token: v.string(), expirationTime: Time });
export const SessionSchema = v.object({ userId: v.number(), projectId: v.number(), creationTime: Time, expirationTime: Time });
export type Session = v.InferOutput<typeof SessionSchema>;

// a real hash to compare against when the email is unknown, so both failures cost one scrypt
let decoy: Promise<string> | undefined;

export async function login({
  deps,
  input,
}: {
  deps: Pick<Deps, 'store' | 'clock' | 'sessionTtlSeconds'>;
  input: unknown;
}): Promise<v.InferOutput<typeof LoginResponseSchema>> {
  const b = parseInput(LoginBodySchema, input);
  const user = await deps.store.users.getByEmail(b.projectId, b.email);
  decoy ??= hashPassword('decoy password, never valid');
  const ok = await verifyPassword(b.password, user?.passwordHash ?? (await decoy));
  if (!user || !ok) throw new AppError('AUTHORIZATION_REQUIRED', { message: 'invalid email or password' });
  const token = generateToken('ut.');
  const now = deps.clock.now();
  const expirationTime = new Date(now.getTime() + deps.sessionTtlSeconds * 1000).toISOString();
  await deps.store.sessions.create({ tokenHash: hashToken(token), userId: user.id, projectId: user.projectId, creationTime: now.toISOString(), expirationTime });
  return { userId: user.id, token, expirationTime };
}

function sessionCaller(caller: Caller): Extract<Caller, { type: 'user' }> {
  requireCaller(caller);
  if (caller.type !== 'user') throw new AppError('PERMISSION_DENIED', { required: 'a user token' });
  return caller;
}

export async function getSession({ deps, caller }: { deps: Pick<Deps, 'store'>; caller: Caller }): Promise<Session> {
  const u = sessionCaller(caller);
  const s = await deps.store.sessions.getByHash(u.tokenHash);
  if (!s) throw new AppError('INVALID_TOKEN');
  return { userId: s.userId, projectId: s.projectId, creationTime: s.creationTime, expirationTime: s.expirationTime };
}

/** sign out: the token stops working here at once, and live streams opened with it close */
export async function logout({ deps, caller }: { deps: Pick<Deps, 'store' | 'bus'>; caller: Caller }): Promise<void> {
  const u = sessionCaller(caller);
  await deps.store.sessions.delete(u.tokenHash);
  await deps.bus.publish('revoke', { kind: 'session', tokenHash: u.tokenHash });
}
