// docs/concepts.md#accounts: the single-use codes mailed for email verification and password reset.
// A code is stored only as an HMAC (tokens.ts), one per user and purpose (a new one replaces the
// last). The mail goes out after the request is answered, so the answer takes as long whether or
// not the address has an account; a mail server that refuses it is reported in the general log.
import type { Deps, StoreOf } from '../deps.js';
import type { AccountCodePurpose, UserRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { hashAccountCode } from '../auth/tokens.js';
import { throttled, countFailure, rateLimited, refuseWhileWaiting, type Lane } from '../auth/throttle.js';
import { writeLog } from '../log/write.js';

/** docs/concepts.md#accounts: how long a code works */
export const CODE_TTL_SECONDS: Record<AccountCodePurpose, number> = { verify: 24 * 3600, reset: 3600 };

type MailDeps = Pick<Deps, 'clock' | 'secret' | 'random' | 'mailer' | 'publicUrl'> & StoreOf<'logs' | 'users'>;

const scopeOf = (u: UserRow, purpose: AccountCodePurpose) => `${purpose}:${u.projectId}:${u.id}`;

/** 503 where the server has no mail server: codes could never arrive */
export function requireMailer(deps: Pick<Deps, 'mailer'>, what: string): NonNullable<Deps['mailer']> {
  if (!deps.mailer)
    throw new AppError('SERVICE_UNAVAILABLE', { message: `${what} needs a mail server, and this server has none (HEARTH_SMTP_URL is not set)` });
  return deps.mailer;
}

/** replaces the user's code of this purpose with a new one and mails it (in the background) */
export async function issueCode(deps: MailDeps, u: UserRow, purpose: AccountCodePurpose): Promise<void> {
  const mailer = requireMailer(deps, MAIL_WORDS[purpose].what);
  const code = deps.random.accountCode();
  const expirationTime = new Date(deps.clock.now().getTime() + CODE_TTL_SECONDS[purpose] * 1000).toISOString();
  await deps.store.users.setCode(u.id, purpose, { hash: hashAccountCode(deps.secret, scopeOf(u, purpose), code), expirationTime });
  const mail = codeMail(deps, purpose, u, code);
  void mailer.send({ to: u.email, ...mail }).catch((err: Error) =>
    writeLog({
      deps,
      input: { projectId: u.projectId, level: 'warn', source: 'api', text: `account mail to user ${u.id} was not sent: ${err.message}` },
    }),
  );
}

/** true once: the user held this code for this purpose, unexpired; it is gone after */
export async function takeCode(
  deps: Pick<Deps, 'clock' | 'secret'> & StoreOf<'users'>,
  u: UserRow,
  purpose: AccountCodePurpose,
  code: string,
): Promise<boolean> {
  return deps.store.users.takeCode(u.id, purpose, hashAccountCode(deps.secret, scopeOf(u, purpose), code), deps.clock.now().toISOString());
}

/** the link of a mail into the console, when the server knows its public URL (else the code alone) */
function linkOf(deps: Pick<Deps, 'publicUrl'>, purpose: AccountCodePurpose, u: UserRow, code: string): string | undefined {
  if (!deps.publicUrl) return undefined;
  const q = new URLSearchParams({ projectId: String(u.projectId), email: u.email, token: code });
  return `${deps.publicUrl.replace(/\/+$/, '')}/console#/${purpose}?${q}`;
}

/** what a mail of each purpose says around the code (the console page of its link is named after the purpose) */
const MAIL_WORDS: Readonly<Record<AccountCodePurpose, { readonly what: string; readonly subject: string; readonly action: string; readonly footer: string }>> =
  {
    verify: {
      what: 'email verification',
      subject: 'Verify your email address',
      action: 'To verify your email address',
      footer: `The code works once, for ${CODE_TTL_SECONDS.verify / 3600} hours. If you did not sign up, ignore this mail.`,
    },
    reset: {
      what: 'password reset',
      subject: 'Reset your password',
      action: 'To choose a new password',
      footer: 'The code works once, for one hour. If you did not ask for it, ignore this mail: your password stays as it is.',
    },
  };

function codeMail(deps: Pick<Deps, 'publicUrl'>, purpose: AccountCodePurpose, u: UserRow, code: string) {
  const words = MAIL_WORDS[purpose];
  const link = linkOf(deps, purpose, u, code);
  return {
    subject: words.subject,
    text: [
      `Hello ${u.name},`,
      '',
      link ? `${words.action}, open this link:\n\n  ${link}\n\nor enter this code:` : `${words.action}, enter this code:`,
      '',
      `  ${code}`,
      '',
      words.footer,
    ].join('\n'),
  };
}

/** docs/concepts.md#accounts: asking for a mail counts on the address's and the client's lanes, like a signup */
export async function throttleMailRequest(deps: Pick<Deps, 'authThrottle'>, projectId: number, email: string, ip: string | undefined): Promise<void> {
  const t = deps.authThrottle;
  if (!t) return;
  const lanes: Lane[] = [
    { key: `account-mail:${projectId}:${email}`, policy: 'account' },
    { key: `account-mail-ip:${ip ?? 'unknown'}`, policy: 'client' },
  ];
  await refuseWhileWaiting(t, lanes);
  const wait = await countFailure(t, lanes);
  if (wait > 0) throw rateLimited(wait);
}

export const wrongCode = () =>
  new AppError('INVALID_TOKEN', { credential: 'code', message: 'the code is wrong, has expired or was used already: ask for a new one' });

/** docs/concepts.md#accounts: a code guess is throttled like a sign-in: per address and per client; a right one forgets the address's failures */
export function throttledCode<T>(
  deps: Pick<Deps, 'authThrottle'>,
  projectId: number,
  email: string,
  ip: string | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  const account: Lane = { key: `account-code:${projectId}:${email}`, policy: 'account' };
  return throttled(deps.authThrottle, [account, { key: `account-code-ip:${ip ?? 'unknown'}`, policy: 'client' }], ['INVALID_TOKEN'], attempt, [account]);
}
