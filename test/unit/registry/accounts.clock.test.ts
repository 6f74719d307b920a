// docs/concepts.md#accounts rules that depend on time, with the Clock port moved (the API in-process, a
// real SMTP server on loopback for the codes): a reset code stops working after its hour, and a
// user changing its password needs currentPassword once its session is over 10 minutes old.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedUser } from '../../helpers/seed.js';
import { eventually } from '../../helpers/wait.js';
import { codeOf, startMailbox, type Mailbox } from '../../helpers/mailbox.js';
import { createSmtpMailer } from '../../../src/adapters/mail/smtp.js';

let t: TestApi;
let mail: Mailbox;
beforeAll(async () => {
  mail = await startMailbox();
  t = await makeTestApi();
  t.deps.mailer = createSmtpMailer({ url: mail.url, from: 'hearth@example.test' });
});
afterAll(async () => {
  await t.deps.mailer?.close();
  await t.close();
  await mail.close();
});

/** moves the Clock port ahead by `ms` for the duration of `fn` */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const before = t.deps.clock;
  t.deps.clock = { now: () => new Date(Date.now() + ms) };
  try {
    return await fn();
  } finally {
    t.deps.clock = before;
  }
}

describe('account rules in time', () => {
  it('refuses a reset code after its hour; the password stays', async () => {
    const u = await seedUser(t);
    expect((await t.req('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: u.email } })).status).toBe(204);
    const code = codeOf(await eventually(() => mail.to(u.email)[0], undefined, 'the reset mail'));
    const late = await later(3600_000 + 1000, () =>
      t.req('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: code, password: 'a new password' } }),
    );
    expect(late.status).toBe(403);
    expect(late.body.reason).toBe('INVALID_TOKEN');
    expect((await t.req('POST', '/auth/user', { body: { projectId: 1, email: u.email, password: u.password } })).status).toBe(200);
    // positive control: within the hour the same code works
    const inTime = await later(3600_000 - 60_000, () =>
      t.req('POST', '/auth/user/passwordReset', { body: { projectId: 1, email: u.email, token: code, password: 'a new password' } }),
    );
    expect(inTime.status).toBe(204);
  });

  it('needs currentPassword when the session is over 10 minutes old (403 INVALID_PARAMETERS naming it), not before', async () => {
    const u = await seedUser(t);
    const stale = await later(11 * 60_000, () => t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { password: 'changed password 1' } }));
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({
      reason: 'INVALID_PARAMETERS',
      data: { issues: [{ path: 'currentPassword', message: expect.stringContaining('10 minutes') }] },
    });
    const withCurrent = await later(11 * 60_000, () =>
      t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { password: 'changed password 1', currentPassword: u.password } }),
    );
    expect(withCurrent.status).toBe(204);
    // a session 9 minutes old still may
    const fresh = await later(9 * 60_000, () => t.req('PATCH', `/users/${u.userId}`, { token: u.token, body: { password: 'changed password 2' } }));
    expect(fresh.status).toBe(204);
    // a project key needs none, at any age, and every session of the user ends
    const byKey = await later(11 * 60_000, () => t.req('PATCH', `/users/${u.userId}`, { token: t.adminKey, body: { password: 'changed password 3' } }));
    expect(byKey.status).toBe(204);
    expect((await t.req('GET', '/userSession', { token: u.token })).status).toBe(401);
  });
});
