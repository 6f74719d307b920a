// Accounts (docs/concepts.md#accounts) against a real server and a real SMTP server on loopback: email
// verification and password reset by the mailed code (read from the received mail), the same 204
// for unknown addresses, wrong, reused and expired codes, the throttle, and the password-change
// rule for a fresh session; every other session ends on a change or reset (tokens answer 401,
// streams close). Expiry and the 10-minute rule move the Clock port: test/unit/registry/accounts.clock.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { eventually } from '../helpers/wait.js';
import { codeOf, startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { wsConnect } from './broker/clients.js';

let t: TestHearth;
let mail: Mailbox;
let n = 0;
const email = () => `person-${Date.now()}-${++n}@example.test`;
const PASSWORD = 'first password 1';

beforeAll(async () => {
  mail = await startMailbox();
  t = await startTestHearth({
    smtpUrl: mail.url,
    mailFrom: 'Hearth <hearth@example.test>',
    http: { publicUrl: 'https://hearth.example.test' },
    // every request comes from 127.0.0.1: only the per-address lanes are under test here
    authThrottle: { clientFreeFailures: 1000 },
  });
  const on = await t.http('PATCH', '/projects/1', { token: t.adminKey, body: { verifyEmails: true } });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  expect(on.body.verifyEmails).toBe(true);
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

async function signUp(address = email()): Promise<{ id: number; email: string }> {
  const r = await t.http('POST', '/users', { body: { projectId: 1, name: 'Pat', email: address, password: PASSWORD } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, email: address };
}
const signIn = (address: string, password = PASSWORD) => t.http('POST', '/auth/user', { body: { projectId: 1, email: address, password } });
const nthMail = (address: string, i: number) => eventually(() => mail.to(address)[i], undefined, `mail ${i} to ${address}`);
const resetMail = (address: string) =>
  eventually(() => mail.to(address).find((x) => x.raw.includes('Subject: Reset your password')), undefined, `reset mail to ${address}`);

describe('email verification', () => {
  it('starts a self-signup unverified and verifies it with the mailed code; a wrong or reused code is 403 INVALID_TOKEN', async () => {
    const u = await signUp();
    const m = await nthMail(u.email, 0);
    expect(m.from).toBe('hearth@example.test');
    expect(m.raw).toContain('Subject: Verify your email address');
    const code = codeOf(m);
    // the link fills the console's form in (http.publicUrl is set)
    expect(m.raw).toContain(`https://hearth.example.test/console#/verify?projectId=1&email=${encodeURIComponent(u.email)}&token=${code}`);
    const session = (await signIn(u.email)).body;
    expect((await t.http('GET', `/users/${u.id}`, { token: session.token })).body.verified).toBe(false);

    const wrong = await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: u.email, token: 'AAAA-AAAA' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.reason).toBe('INVALID_TOKEN');
    // case and dashes do not matter
    const ok = await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: u.email, token: code.replace('-', '').toLowerCase() } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(204);
    expect((await t.http('GET', `/users/${u.id}`, { token: session.token })).body.verified).toBe(true);
    const again = await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: u.email, token: code } });
    expect(again.status).toBe(403);
    expect(again.body.reason).toBe('INVALID_TOKEN');
  });

  it('mails a new code on request (the old one stops working); an unknown or verified address gets the same 204 and no mail', async () => {
    const u = await signUp();
    const first = codeOf(await nthMail(u.email, 0));
    const unknown = email();
    const verified = (await t.http('POST', '/users', { token: t.adminKey, body: { projectId: 1, name: 'Key made', email: email(), password: PASSWORD } })).body;
    expect(verified.verified).toBe(true);
    for (const address of [unknown, verified.email, u.email]) {
      const r = await t.http('POST', '/auth/user/emailVerification/start', { body: { projectId: 1, email: address } });
      expect(r.status).toBe(204);
      expect(r.body).toBeUndefined();
    }
    // positive control first: the unverified user's second mail arrived, after the other two were asked
    const second = codeOf(await nthMail(u.email, 1));
    expect(mail.to(unknown)).toEqual([]);
    expect(mail.to(verified.email)).toEqual([]);
    if (second !== first) {
      const old = await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: u.email, token: first } });
      expect(old.status).toBe(403);
    }
    expect((await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: u.email, token: second } })).status).toBe(204);
  });

  it('answers an unknown address of a code with the same 403 as a wrong code', async () => {
    const r = await t.http('POST', '/auth/user/emailVerification', { body: { projectId: 1, email: email(), token: 'ABCD-EFGH' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_TOKEN');
  });
});

describe('password reset', () => {
  it('sets a new password with the mailed code: every session ends, its streams close, the code works once', async () => {
    const u = await signUp();
    const a = (await signIn(u.email)).body.token;
    const b = (await signIn(u.email)).body.token;
    const stream = await wsConnect(t, `/userSession/websocket?authToken=${encodeURIComponent(a)}`);

    const unknown = email();
    expect((await t.http('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: unknown } })).status).toBe(204);
    const start = await t.http('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: u.email } });
    expect(start.status).toBe(204);
    const m = (await resetMail(u.email))!;
    const code = codeOf(m);
    expect(m.raw).toContain('https://hearth.example.test/console#/reset?');
    expect(mail.to(unknown)).toEqual([]);

    const short = await t.http('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: code, password: 'short' } });
    expect(short.status).toBe(403);
    expect(short.body.data.issues[0].path).toBe('password');
    const reset = await t.http('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: code, password: 'second password 2' } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(204);

    expect((await stream.closed).code).toBe(1008);
    for (const token of [a, b]) expect((await t.http('GET', '/userSession', { token })).status).toBe(401);
    expect((await signIn(u.email)).status).toBe(401);
    const fresh = await signIn(u.email, 'second password 2');
    expect(fresh.status).toBe(200);
    // the code came through the address: it is verified now
    expect((await t.http('GET', `/users/${u.id}`, { token: fresh.body.token })).body.verified).toBe(true);
    const reused = await t.http('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: code, password: 'third password 3' } });
    expect(reused.status).toBe(403);
    expect(reused.body.reason).toBe('INVALID_TOKEN');
  });

  it('throttles reset requests per address and code guesses like sign-in: 429 with Retry-After, even for the right code', async () => {
    const u = await signUp();
    const starts: number[] = [];
    for (let i = 0; i < 10 && !starts.includes(429); i++)
      starts.push((await t.http('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: u.email } })).status);
    expect(starts.at(-1)).toBe(429);
    expect(starts.slice(0, -1).every((s) => s === 204)).toBe(true);
    expect(starts.length).toBeGreaterThan(1);
    const code = codeOf(await nthMail(u.email, 1));

    const guesses: { status: number; headers: Headers }[] = [];
    for (let i = 0; i < 10 && !guesses.some((g) => g.status === 429); i++)
      guesses.push(
        await t.http('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: 'ZZZZ-ZZZZ', password: 'guessed password' } }),
      );
    expect(guesses.at(-1)!.status).toBe(429);
    expect(Number(guesses.at(-1)!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(guesses.slice(0, -1).every((g) => g.status === 403)).toBe(true);
    const right = await t.http('POST', '/auth/user/passwordReset', {
      body: { projectId: 1, email: mail.to(u.email)[0].to[0], token: code, password: 'guessed password' },
    });
    expect(right.status).toBe(429);
  });
});

describe('changing a password (PATCH /users/{id}, 204)', () => {
  it('needs no currentPassword from a session opened just now; the other sessions end and their streams close', async () => {
    const u = await signUp();
    const mine = (await signIn(u.email)).body.token;
    const other = (await signIn(u.email)).body.token;
    const stream = await wsConnect(t, `/userSession/websocket?authToken=${encodeURIComponent(other)}`);
    const fresh = await t.http('PATCH', `/users/${u.id}`, { token: mine, body: { name: 'Pat', password: 'second password 2' } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(204);
    expect(fresh.body).toBeUndefined();
    expect((await stream.closed).code).toBe(1008);
    expect((await t.http('GET', '/userSession', { token: other })).status).toBe(401);
    expect((await t.http('GET', '/userSession', { token: mine })).status).toBe(200);
    expect((await signIn(u.email, 'second password 2')).status).toBe(200);
  });
});

describe('without a mail server', () => {
  it('refuses verifyEmails with the reason, answers the mail operations 503, and verifies signups at once', async () => {
    const bare = await startTestHearth();
    try {
      const on = await bare.http('PATCH', '/projects/1', { token: bare.adminKey, body: { verifyEmails: true } });
      expect(on.status).toBe(403);
      expect(on.body.reason).toBe('INVALID_PARAMETERS');
      expect(on.body.data.issues[0]).toEqual({ path: 'verifyEmails', message: expect.stringContaining('HEARTH_SMTP_URL') });
      for (const path of ['/auth/user/passwordReset/start', '/auth/user/emailVerification/start']) {
        const r = await bare.http('POST', path, { body: { projectId: 1, email: 'anyone@example.test' } });
        expect(r.status, path).toBe(503);
        expect(r.body.reason).toBe('SERVICE_UNAVAILABLE');
        expect(r.body.data.message).toContain('HEARTH_SMTP_URL');
      }
      const u = await bare.http('POST', '/users', { body: { projectId: 1, name: 'Pat', email: 'pat@example.test', password: PASSWORD } });
      expect(u.body.verified).toBe(true);
    } finally {
      await bare.close();
    }
  });
});
