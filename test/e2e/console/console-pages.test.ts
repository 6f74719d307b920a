// The console's pages in Chromium against a real Hearth: state that must not survive a move to
// another place (the module editor: URL, Back/Forward, link), addresses that name nothing (the
// not-found page, never a frozen tab), homes chosen by name, the device page's live details, the
// overview's failing deliveries, and every page at phone width.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { launchChromium } from '../../helpers/browser.js';
import { mqttConnect } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

// a browser, a server and devices in one test: slow on a busy machine, waited for by events
vi.setConfig({ testTimeout: 90_000 });

let t: TestHearth;
let browser: Browser;
let receiver: Server;
/** the receiver answers with the status named by the last path segment: /hook/200, /hook/500 */
let receiverBase: string;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

beforeAll(async () => {
  await buildConsole();
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true } });
  browser = await launchChromium();
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(Number(req.url?.split('/').pop()) || 200, { 'content-type': 'text/plain' }).end('answer'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  receiver?.close();
  await t?.close();
});

/** a signed-in tab (the admin key in session storage, as the sign-in form leaves it) that fails its test on a script error */
async function signedIn(opts: { width?: number; hash?: string } = {}): Promise<{ page: Page; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 } });
  onTestFinished(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  onTestFinished(() => expect(errors).toEqual([]));
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(t.httpUrl) && !r.url().includes('/console')) requests.push(`${r.method()} ${r.url().slice(t.httpUrl.length)}`);
  });
  await page.goto(`${t.httpUrl}/console`);
  const session = JSON.stringify({ token: t.adminKey, kind: 'project key', projectId: 1, who: 'admin' });
  await page.evaluate(`sessionStorage.setItem('hearth.console.session', ${JSON.stringify(session)})`);
  await page.goto(`${t.httpUrl}/console#/${opts.hash ?? 'overview'}`);
  await page.reload();
  await page.locator('[data-live="on"]').waitFor();
  return { page, requests };
}

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });
const setHash = (page: Page, hash: string) => page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
const api = async (method: string, path: string, body?: unknown) => {
  const r = await t.http(method, path, { token: t.adminKey, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
};

describe('the smart-module editor', () => {
  it("shows each module's own settings after a typed URL, Back/Forward and a link, and Save writes only the module shown", async () => {
    const a = { id: unique('mod-a'), url: `${receiverBase}/a/200`, subscriptions: 'alpha' };
    const b = { id: unique('mod-b'), url: `${receiverBase}/b/200`, subscriptions: 'beta' };
    for (const m of [a, b])
      await api('POST', '/projects/1/smartModules', { id: m.id, moduleType: 'webhooks', eventWebhook: { url: m.url, subscriptions: m.subscriptions } });
    const { page } = await signedIn({ hash: `modules/${a.id}` });
    const form = page.getByRole('form', { name: 'edit the event webhook' });
    const url = form.getByLabel('Webhook URL');
    const subs = form.getByLabel('Subscriptions');
    await poll(() => url.inputValue()).toBe(a.url);
    expect(await subs.inputValue()).toBe('alpha');

    // an edit left unsaved on a, then a typed URL to b
    await subs.fill('alpha\nunsaved');
    await setHash(page, `#/modules/${b.id}`);
    await page.getByRole('heading', { name: `Module ${b.id}` }).waitFor();
    await poll(() => url.inputValue()).toBe(b.url);
    expect(await subs.inputValue()).toBe('beta');

    await page.goBack();
    await page.getByRole('heading', { name: `Module ${a.id}` }).waitFor();
    await poll(() => url.inputValue()).toBe(a.url);
    expect(await subs.inputValue()).toBe('alpha');
    await page.goForward();
    await page.getByRole('heading', { name: `Module ${b.id}` }).waitFor();
    await poll(() => url.inputValue()).toBe(b.url);

    // a, then b by the list's link; Save on b keeps b's settings and leaves a alone
    await setHash(page, `#/modules/${a.id}`);
    await poll(() => url.inputValue()).toBe(a.url);
    await page.getByRole('link', { name: '← Smart modules' }).click();
    await page.getByRole('link', { name: b.id, exact: true }).click();
    await poll(() => url.inputValue()).toBe(b.url);
    await subs.fill('beta\ngamma');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const [ra, rb] = [await api('GET', `/projects/1/smartModules/${a.id}`), await api('GET', `/projects/1/smartModules/${b.id}`)];
    expect(ra.eventWebhook.url).toBe(a.url);
    expect(String(ra.eventWebhook.subscriptions)).not.toContain('gamma');
    expect(rb.eventWebhook.url).toBe(b.url);
    expect(JSON.stringify(rb.eventWebhook.subscriptions)).toContain('gamma');
  });
});

describe('addresses that name nothing', () => {
  it('show the not-found page for every parameterised route with a bad parameter, without asking the API, and the tab keeps working', async () => {
    const { page, requests } = await signedIn();
    const bad = [
      // devices/{id}: ids are positive whole numbers that fit the server's integer
      ['devices/abc', 'devices'],
      ['devices/0', 'devices'],
      ['devices/-1', 'devices'],
      ['devices/1.5', 'devices'],
      ['devices/1e3', 'devices'],
      ['devices/0x10', 'devices'],
      ['devices/012', 'devices'],
      ['devices/99999999999', 'devices'],
      ['devices/%E0%A4%A', 'devices'],
      ['devices/1/extra', 'devices'],
      // modules/{id}: the module id pattern
      ['modules/AB-CD', 'modules'],
      ['modules/ab', 'modules'],
      ['modules/-abc-', 'modules'],
      ['modules/a%20b%20c', 'modules'],
      ['modules/%ZZ', 'modules'],
      ['modules/abc/def', 'modules'],
      // sections with no parameterised page, and no section at all
      ['homes/1', 'homes'],
      ['keys/abc', 'keys'],
      ['no-such-section', 'overview'],
      ['%ZZ', 'overview'],
    ] as const;
    for (const [hash, back] of bad) {
      requests.length = 0;
      await setHash(page, `#/${hash}`);
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
      expect(await page.locator('[data-not-found] [role="alert"]').textContent(), hash).toBeTruthy();
      expect(await page.locator('[data-not-found] a').getAttribute('href'), hash).toBe(`#/${back}`);
      // the page answers (a frozen tab would not) and asked the API nothing about the bad parameter
      expect(await page.evaluate('1 + 1')).toBe(2);
      expect(requests, hash).toEqual([]);
    }
    // well-formed ids that name nothing: the API says so and the page says not found
    await setHash(page, '#/devices/2147483000');
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    expect(await page.locator('[data-not-found] [role="alert"]').textContent()).toContain('2147483000');
    await setHash(page, '#/modules/no-such-module');
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    expect(await page.locator('[data-not-found] [role="alert"]').textContent()).toContain('no-such-module');
    // and a good address still works
    await setHash(page, `#/devices/${t.device.id}`);
    await page.getByRole('heading', { level: 2, name: 'Details' }).waitFor();
  });

  it('opens a bad address as the first page of a tab without freezing it', async () => {
    const { page } = await signedIn({ hash: 'devices/abc' });
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: '← Devices' }).click();
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
  });
});
