// The console's account pages in a real browser (Debian Chromium through playwright-core) against a
// real Hearth that mails through a real SMTP server on loopback (docs/concepts.md#accounts): forgot
// password end to end with the code read from the mail, the reset and verify links of the mails,
// and the verification banner of an unverified user until it verifies.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { launchChromium, newTab } from '../../helpers/browser.js';
import { codeOf, startMailbox, type Mailbox, type ReceivedMail } from '../../helpers/mailbox.js';
import { eventually } from '../../helpers/wait.js';
import { buildConsole } from '../../../scripts/build-console.js';

vi.setConfig({ testTimeout: 90_000 });

// the mails link to the public URL; the test opens the same path and query on the loopback server
const PUBLIC = 'https://hearth.example.test';
const PASSWORD = 'first password 1';
const NEW_PASSWORD = 'second password 2';

let t: TestHearth;
let browser: Browser;
let mail: Mailbox;
let n = 0;
const email = () => `console-${Date.now()}-${++n}@example.test`;

beforeAll(async () => {
  await buildConsole();
  mail = await startMailbox();
  t = await startTestHearth({
    smtpUrl: mail.url,
    mailFrom: 'Hearth <hearth@example.test>',
    http: { publicUrl: PUBLIC },
    // every request comes from 127.0.0.1: the wrong codes tried here must not lock the client out
    authThrottle: { clientFreeFailures: 1000 },
  });
  const on = await t.http('PATCH', '/projects/1', { token: t.adminKey, body: { verifyEmails: true } });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mail?.close();
});

const newPage = () => newTab(browser);

/** the machine may be busy: what the page or the service shows is waited for, up to 15 s */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

const nthMail = (address: string, i: number) => eventually(() => mail.to(address)[i], undefined, `mail ${i} to ${address}`);
const subjectMail = async (address: string, subject: string): Promise<ReceivedMail> =>
  (await eventually(() => mail.to(address).find((m) => m.raw.includes(`Subject: ${subject}`)), undefined, `"${subject}" to ${address}`))!;

/** the console link of a mail, on the test's server */
function linkOf(m: ReceivedMail): string {
  const found = /https:\/\/hearth\.example\.test\/console#\/\S+/.exec(m.raw);
  if (!found) throw new Error(`no console link in this mail:\n${m.raw}`);
  return found[0].replace(PUBLIC, t.httpUrl);
}

/** a user made with the admin key: verified from the start */
async function madeUser(): Promise<string> {
  const address = email();
  const r = await t.http('POST', '/users', { token: t.adminKey, body: { projectId: 1, name: 'Kim', email: address, password: PASSWORD } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.verified).toBe(true);
  return address;
}

/** a self-signup: unverified in a project that verifies emails, and mailed a code */
async function signedUp(): Promise<{ id: number; email: string }> {
  const address = email();
  const r = await t.http('POST', '/users', { body: { projectId: 1, name: 'Pat', email: address, password: PASSWORD } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.verified).toBe(false);
  return { id: r.body.id, email: address };
}

async function signIn(page: Page, address: string, password: string): Promise<void> {
  await page.getByLabel('Project id', { exact: true }).fill('1');
  await page.getByLabel('Email', { exact: true }).fill(address);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const signInStatus = (address: string, password: string) => t.http('POST', '/auth/user', { body: { projectId: 1, email: address, password } });

describe('forgot password', () => {
  it('mails a code, refuses a wrong one in words, sets the new password with the right one, and signs in with it', async () => {
    const address = await madeUser();
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await page.getByLabel('Email', { exact: true }).fill(address);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(address);
    await page.getByRole('button', { name: 'Mail me a code' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `If ${address} has an account` })
      .waitFor();
    const code = codeOf(await subjectMail(address, 'Reset your password'));

    await page.getByLabel(/^Code/).fill('AAAA-AAAA');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The code is wrong, has expired or was used already' }).waitFor();
    expect((await signInStatus(address, PASSWORD)).status).toBe(200);

    await page.getByLabel(/^Code/).fill(code);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    expect((await signInStatus(address, PASSWORD)).status).toBe(401);

    await signIn(page, address, NEW_PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('[data-verified="true"]').waitFor({ state: 'attached' });
    expect(await page.getByRole('region', { name: 'email verification' }).count()).toBe(0);
  });

  it('says the same for an address without an account, and no mail goes out', async () => {
    const known = await madeUser();
    const unknown = email();
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email', { exact: true }).fill(unknown);
    await page.getByRole('button', { name: 'Mail me a code' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `If ${unknown} has an account` })
      .waitFor();
    // positive control: a mail asked after it for a known address arrives, and none came for the unknown one
    expect((await t.http('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: known } })).status).toBe(204);
    await subjectMail(known, 'Reset your password');
    expect(mail.to(unknown)).toEqual([]);
  });

  it('opens the reset link of the mail prefilled, and the new password works', async () => {
    const address = await madeUser();
    expect((await t.http('POST', '/auth/user/passwordReset/start', { body: { projectId: 1, email: address } })).status).toBe(204);
    const link = linkOf(await subjectMail(address, 'Reset your password'));
    const page = await newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(address);
    expect(await page.getByLabel('Project id', { exact: true }).inputValue()).toBe('1');
    expect(await page.getByLabel(/^Code/).inputValue()).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    await signIn(page, address, NEW_PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
});

describe('email verification', () => {
  it('shows the banner to an unverified user; "Send again" mails a new code; a wrong or old code is refused; the right one removes the banner', async () => {
    const u = await signedUp();
    const first = codeOf(await nthMail(u.email, 0));
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await signIn(page, u.email, PASSWORD);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const banner = page.getByRole('region', { name: 'email verification' });
    await banner.getByText(`Your email address ${u.email} is not verified yet`).waitFor();

    await banner.getByRole('button', { name: 'Send again' }).click();
    await banner.getByText('A new code is on its way').waitFor();
    const second = codeOf(await nthMail(u.email, 1));
    expect(second).not.toBe(first);

    await banner.getByLabel(/^Code/).fill(first);
    await banner.getByRole('button', { name: 'Verify' }).click();
    await banner.getByRole('alert').filter({ hasText: 'The code is wrong' }).waitFor();
    expect((await t.http('GET', `/users/${u.id}`, { token: t.adminKey })).body.verified).toBe(false);

    await banner.getByLabel(/^Code/).fill(second);
    await banner.getByRole('button', { name: 'Verify' }).click();
    await page.locator('[data-verified="true"]').waitFor({ state: 'attached' });
    expect(await banner.count()).toBe(0);
    expect((await t.http('GET', `/users/${u.id}`, { token: t.adminKey })).body.verified).toBe(true);

    // after a reload the user is still verified: no banner
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('[data-verified="true"]').waitFor({ state: 'attached' });
    expect(await banner.count()).toBe(0);
  });

  it('opens the verify link of the mail signed out, prefilled, and verifies', async () => {
    const u = await signedUp();
    const link = linkOf(await nthMail(u.email, 0));
    expect(link).toContain('#/verify?');
    const page = await newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Verify your email address' }).waitFor();
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(u.email);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('status').filter({ hasText: 'Your email address is verified' }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await t.http('GET', `/users/${u.id}`, { token: t.adminKey })).body.verified).toBe(true);
  });
});

describe('project settings', () => {
  it('shows and changes commandActions and verifyEmails; in a "mode" project the command form takes a camelCase action and the service accepts it', async () => {
    const d = await t.seedDevice();
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await page.getByRole('tab', { name: 'Project API key' }).click();
    await page.getByLabel(/^API key/).fill(t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // in a "spec" project (the default) the form refuses doEcho as you type
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    await page.getByLabel('Action').fill('doEcho');
    await page.locator('[data-hint="action"]').waitFor();

    await page.getByRole('link', { name: 'Project settings' }).click();
    const form = page.getByRole('form', { name: 'project settings' });
    expect(await form.getByRole('combobox', { name: /Command actions/ }).inputValue()).toBe('spec');
    expect(await form.getByRole('checkbox', { name: /Verify emails/ }).isChecked()).toBe(true);
    await form.getByRole('combobox', { name: /Command actions/ }).selectOption('mode');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await t.http('GET', '/projects/1', { token: t.adminKey })).body.commandActions).toBe('mode');

    await form.getByRole('checkbox', { name: /Verify emails/ }).uncheck();
    await poll(async () => (await t.http('GET', '/projects/1', { token: t.adminKey })).body.verifyEmails).toBe(false);
    await form.getByRole('checkbox', { name: /Verify emails/ }).check();
    await poll(async () => (await t.http('GET', '/projects/1', { token: t.adminKey })).body.verifyEmails).toBe(true);

    // the command form follows the setting: doEcho is sent, and the service gets past the action to the offline device
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    await page.getByRole('heading', { name: 'Send a command' }).waitFor();
    await page.getByLabel('Action').fill('doEcho');
    const sendButton = page.getByRole('form', { name: 'send a command' }).getByRole('button', { name: 'Send' });
    await poll(() => sendButton.isEnabled()).toBe(true);
    expect(await page.locator('[data-hint="action"]').count()).toBe(0);
    await sendButton.click();
    await page.getByText(/offline: a command reaches only a device with a live/).waitFor();

    const back = await t.http('PATCH', '/projects/1', { token: t.adminKey, body: { commandActions: 'spec' } });
    expect(back.status).toBe(200);
  });
});
