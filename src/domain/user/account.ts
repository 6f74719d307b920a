// docs/concepts.md#accounts: email verification and password reset by mailed code. Asking for a mail
// answers the same whether or not the address has an account (204), so accounts cannot be probed;
// both ask and confirm are throttled like sign-in (account-codes.ts). A reset ends every session
// of the user, and proves the address too (the code came through it).
import type { Body, ClientIp, Deps, StoreOf, SystemArgs } from '../deps.js';
import { hashPassword } from '../auth/password.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { issueCode, requireMailer, takeCode, throttleMailRequest, throttledCode, wrongCode } from './account-codes.js';
import { endSessions } from './sessions.js';
import { AccountMailBodySchema, ResetPasswordBodySchema, VerifyEmailBodySchema } from './schemas.js';

type D = Pick<Deps, 'clock' | 'secret' | 'random' | 'mailer' | 'publicUrl' | 'authThrottle'> & StoreOf<'logs' | 'projects' | 'users'>;

/** POST /auth/user/emailVerification/start: mails a new code to an unverified user of a project that verifies */
export async function startEmailVerification({ deps, input: { body, ip } }: SystemArgs<D, Body & ClientIp>): Promise<void> {
  // input parsed at the top (house rule 2): a malformed body is 403 whether or not mail is configured
  const b = parseInput(AccountMailBodySchema, body);
  requireMailer(deps, 'email verification');
  await throttleMailRequest(deps, b.projectId, b.email, ip);
  const u = await deps.store.users.getByEmail(b.projectId, b.email);
  if (!u || u.verified) return;
  await issueCode(deps, u, 'verify');
}

/** POST /auth/user/emailVerification: the right code marks the address verified */
export async function confirmEmailVerification({ deps, input: { body, ip } }: SystemArgs<D, Body & ClientIp>): Promise<void> {
  const b = parseInput(VerifyEmailBodySchema, body);
  const u = await throttledCode(deps, b.projectId, b.email, ip, async () => {
    const u = await deps.store.users.getByEmail(b.projectId, b.email);
    if (!u || !(await takeCode(deps, u, 'verify', b.token))) throw wrongCode();
    return u;
  });
  await deps.store.users.update(u.id, { verified: true });
  await writeLog({ deps, input: { projectId: u.projectId, level: 'info', source: 'api', text: `user ${u.id} verified its email address` } });
}

/** POST /auth/user/passwordReset/start: mails a reset code (valid one hour) to a user of the project */
export async function startPasswordReset({ deps, input: { body, ip } }: SystemArgs<D, Body & ClientIp>): Promise<void> {
  // input parsed at the top (house rule 2): a malformed body is 403 whether or not mail is configured
  const b = parseInput(AccountMailBodySchema, body);
  requireMailer(deps, 'password reset');
  await throttleMailRequest(deps, b.projectId, b.email, ip);
  const u = await deps.store.users.getByEmail(b.projectId, b.email);
  if (u) await issueCode(deps, u, 'reset');
}

/** POST /auth/user/passwordReset: the right code sets the new password and ends every session */
export async function confirmPasswordReset({
  deps,
  input: { body, ip },
}: SystemArgs<D & Pick<Deps, 'bus'> & StoreOf<'sessions'>, Body & ClientIp>): Promise<void> {
  const b = parseInput(ResetPasswordBodySchema, body);
  const u = await throttledCode(deps, b.projectId, b.email, ip, async () => {
    const u = await deps.store.users.getByEmail(b.projectId, b.email);
    if (!u || !(await takeCode(deps, u, 'reset', b.token))) throw wrongCode();
    return u;
  });
  await deps.store.users.update(u.id, { passwordHash: await hashPassword(b.password), verified: true });
  const ended = await endSessions(deps, u.id);
  await writeLog({
    deps,
    input: { projectId: u.projectId, level: 'info', source: 'api', text: `user ${u.id} reset its password by mailed code; ${ended} session(s) ended` },
  });
}
