// The console's pages in Chromium against a real Hearth: state that must not survive a move to
// another place (the module editor: URL, Back/Forward, link), addresses that name nothing (the
// not-found page, never a frozen tab), homes chosen by name, the device page's live details, the
// overview's failing deliveries, and every page at phone width.
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { afterEffects, holdNextRead, launchChromium, signedInTab, statusReceiver, type StatusReceiver } from '../../helpers/browser.js';
import { mqttConnect } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

// a browser, a server and devices in one test: slow on a busy machine, waited for by events
vi.setConfig({ testTimeout: 90_000 });

let t: TestHearth;
let browser: Browser;
/** answers with the status named by the last path segment: /hook/200, /hook/500 */
let receiver: StatusReceiver;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

beforeAll(async () => {
  await buildConsole();
  // a failed attempt waits an hour for its retry: a delivery the overview counts as retrying stays so
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true, retryScheduleSeconds: [3600] } });
  browser = await launchChromium();
  receiver = await statusReceiver();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

const signedIn = (opts: { width?: number; hash?: string } = {}) => signedInTab(browser, t, opts);

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });
const setHash = (page: Page, hash: string) => page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
const api = async (method: string, path: string, body?: unknown) => {
  const r = await t.http(method, path, { token: t.adminKey, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
};

describe('the smart-module editor', () => {
  it("shows each module's own settings after a typed URL, Back/Forward and a link, and Save writes only the module shown", async () => {
    const a = { id: unique('mod-a'), url: `${receiver.base}/a/200`, subscriptions: 'alpha' };
    const b = { id: unique('mod-b'), url: `${receiver.base}/b/200`, subscriptions: 'beta' };
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

describe('homes chosen by name', () => {
  it('puts a device in a home from the create form, the device page and the homes page, shows the name in the table, and takes it out again', async () => {
    const kitchen = await api('POST', '/homes', { name: unique('Kitchen'), projectId: 1 });
    const garage = await api('POST', '/homes', { name: unique('Garage'), projectId: 1 });
    const name = unique('homed lamp');
    const { page } = await signedIn({ hash: 'devices' });

    // the create form: a home chosen by name
    const create = page.getByRole('form', { name: 'add a device' });
    await create.getByLabel('Name').fill(name);
    await create.getByLabel('Home').selectOption({ label: kitchen.name });
    await create.getByRole('button', { name: 'Create' }).click();
    const id = Number(await page.locator('.once a').textContent());
    expect((await api('GET', `/devices/${id}`)).homeId).toBe(kitchen.id);

    // the table shows the home's name, and filters by home
    await page.getByRole('search').getByLabel('Search').fill(name);
    await poll(() => page.locator(`tr[data-device="${id}"] td[data-field="home"]`).textContent()).toBe(kitchen.name);
    await page.getByRole('search').getByLabel('Home').selectOption({ label: garage.name });
    // pages come without a count (docs/api.md#device-lists total=false): an empty page says so
    await page.getByText('no devices').waitFor();
    await page.getByRole('search').getByLabel('Home').selectOption({ label: kitchen.name });
    await page.locator(`tr[data-device="${id}"]`).waitFor();

    // the device page moves it to another home, then out of every home
    await page.locator(`tr[data-device="${id}"] a`).click();
    const home = page.locator('[data-field="home"]');
    await poll(() => home.textContent()).toBe(kitchen.name);
    await page.getByRole('button', { name: 'Change home' }).click();
    const choose = page.getByRole('form', { name: 'choose a home' });
    await choose.getByLabel('Home').selectOption({ label: garage.name });
    await choose.getByRole('button', { name: 'Save' }).click();
    await poll(() => home.textContent()).toBe(garage.name);
    expect((await api('GET', `/devices/${id}`)).homeId).toBe(garage.id);
    await page.getByRole('button', { name: 'Change home' }).click();
    await choose.getByLabel('Home').selectOption({ label: 'in no home' });
    await choose.getByRole('button', { name: 'Save' }).click();
    await poll(() => home.textContent()).toContain('in no home');
    expect((await api('GET', `/devices/${id}`)).homeId).toBeUndefined();

    // the homes page puts it in by id and takes it out; a bad id is refused in words
    await page.getByRole('link', { name: 'Homes', exact: true }).click();
    await page.getByRole('button', { name: kitchen.name, exact: true }).click();
    const put = page.getByRole('form', { name: `put a device in ${kitchen.name}` });
    await put.getByLabel('Device id').fill('abc');
    await put.getByRole('button', { name: 'Put in this home' }).click();
    await page.getByText('“abc” is not a device id').waitFor();
    await put.getByLabel('Device id').fill('2147483000');
    await put.getByRole('button', { name: 'Put in this home' }).click();
    await page.getByText('No such device').waitFor();
    await put.getByLabel('Device id').fill(String(id));
    await put.getByRole('button', { name: 'Put in this home' }).click();
    const row = page.locator(`[data-home-device="${id}"]`);
    await row.waitFor();
    expect((await api('GET', `/devices/${id}`)).homeId).toBe(kitchen.id);
    await row.getByRole('button', { name: 'Take out' }).click();
    await row.getByRole('button', { name: 'Yes, take out' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api('GET', `/devices/${id}`)).homeId).toBeUndefined();
  });
});

describe("a device's page", () => {
  it('shows the last connect while online, counts live events into the history, and no stray backtick', async () => {
    const d = await t.seedDevice();
    const { page } = await signedIn({ hash: `devices/${d.id}` });
    await page.getByRole('heading', { level: 2, name: 'Details' }).waitFor();
    await page.locator('[data-history-total="0"]').waitFor({ state: 'attached' });
    expect(await page.locator('[data-field="lastConnectTime"]').textContent()).toBe('—');

    const c = await mqttConnect(t, d);
    onTestFinished(() => c.endAsync(true));
    await page.locator('.status[data-status="online"]').waitFor();
    await poll(() => page.locator('[data-field="lastConnectTime"]').textContent()).not.toBe('—');
    await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'door-opened', eventData: { door: 'front' } }), { qos: 1 });
    await page.locator('.live-events [data-event-type="door-opened"]').waitFor();
    // the history holds the connection and the event: read again as they arrived
    await page.locator('.events:not(.live-events) [data-event-type="door-opened"]').waitFor();
    expect(Number(await page.locator('[data-history-total]').getAttribute('data-history-total'))).toBeGreaterThanOrEqual(2);
    await c.endAsync();
    await page.locator('.status[data-status="offline"]').waitFor();
    await poll(() => page.locator('[data-field="lastDisconnectTime"]').textContent()).not.toBe('—');

    const data = page.locator('section.card', { has: page.getByRole('heading', { level: 2, name: 'Data' }) });
    await data.getByText('no store data source').waitFor();
    expect(await data.textContent()).not.toContain('`');
    expect(await data.locator('code').textContent()).toBe('store');
  });

  it('starts afresh on another device: an edit left open on one is not saved into the other', async () => {
    const [a, b] = [await t.seedDevice(), await t.seedDevice()];
    await api('PATCH', `/devices/${a.id}`, { name: 'device a' });
    await api('PATCH', `/devices/${b.id}`, { name: 'device b' });
    const { page } = await signedIn({ hash: `devices/${a.id}` });
    await page.getByRole('heading', { level: 1, name: 'device a' }).waitFor();
    await page.getByRole('button', { name: 'Edit name' }).click();
    await page.getByLabel('Name', { exact: true }).fill('typed on a');
    await setHash(page, `#/devices/${b.id}`);
    await page.getByRole('heading', { level: 1, name: 'device b' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
    expect(await page.locator('[data-field="name"]').textContent()).toBe('device b');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'device a' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
    expect((await api('GET', `/devices/${b.id}`)).name).toBe('device b');
  });
});

describe("a device's page and the stream", () => {
  it('keeps a disconnect that arrives while the page reads the device again (the read was answered while it was online)', async () => {
    const d = await t.seedDevice();
    await api('PATCH', `/devices/${d.id}`, { name: 'before the race' });
    const c = await mqttConnect(t, d);
    onTestFinished(() => void c.endAsync().catch(() => undefined));
    const { page } = await signedIn({ hash: `devices/${d.id}` });
    await page.getByRole('heading', { level: 1, name: 'before the race' }).waitFor();
    await page.locator('.status[data-status="online"]').waitFor();
    // the read after a save is answered while the device is online, and held in the browser until
    // the stream has said the device left
    const read = await holdNextRead(page, (u) => u.pathname === `/devices/${d.id}`);
    await page.getByRole('button', { name: 'Edit name' }).click();
    await page.getByLabel('Name', { exact: true }).fill('after the race');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await read.answered;
    await c.endAsync();
    await page.locator('.status[data-status="offline"]').waitFor();
    read.release();
    // positive control: the held answer has been drawn, and the effects of that render have run
    await page.getByRole('heading', { level: 1, name: 'after the race' }).waitFor();
    await afterEffects(page);
    expect(await page.locator('.status').getAttribute('data-status')).toBe('offline');
    await poll(() => page.locator('[data-field="lastDisconnectTime"]').textContent()).not.toBe('—');
  });
});

describe('the overview', () => {
  it('shows deliveries retrying, failed and dropped, and which modules have them or were turned off; a module page turns its webhook on again', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    const retry = unique('retry');
    const fail = unique('fail');
    const drop = unique('drop');
    await api('POST', '/projects/1/smartModules', {
      id: retry,
      moduleType: 'webhooks',
      eventWebhook: { url: `${receiver.base}/r/500`, subscriptions: 'overview-retry' },
    });
    await api('POST', '/projects/1/smartModules', {
      id: fail,
      moduleType: 'webhooks',
      eventWebhook: { url: `${receiver.base}/f/400`, subscriptions: 'overview-fail' },
    });
    // a body that is not JSON once the string is put in: sent nowhere, recorded as dropped
    await api('POST', '/projects/1/smartModules', {
      id: drop,
      moduleType: 'webhooks',
      eventWebhook: { url: `${receiver.base}/d/200`, subscriptions: 'overview-drop', body: '{"v": {{eventData.word}}}' },
    });
    const gone = unique('gone');
    await api('POST', '/projects/1/smartModules', {
      id: gone,
      moduleType: 'webhooks',
      eventWebhook: { url: `${receiver.base}/g/410`, subscriptions: 'overview-gone' },
    });
    for (const eventType of ['overview-retry', 'overview-fail', 'overview-drop', 'overview-gone'])
      expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType, eventData: { word: 'not json' } } })).status).toBe(204);
    const log = async (m: string, status: string) =>
      (await t.http('GET', `/projects/1/smartModules/${m}/deliveries?status=${status}`, { token: t.adminKey })).body;
    await poll(async () => (await log(retry, 'pending'))[0]?.attemptCount ?? 0).toBe(1);
    await poll(async () => (await log(fail, 'failed')).length).toBe(1);
    await poll(async () => (await log(drop, 'dropped')).length).toBe(1);
    await poll(async () => (await api('GET', `/projects/1/smartModules/${gone}`)).eventWebhook.enabled).toBe(false);

    const { page } = await signedIn({ hash: 'overview' });
    await poll(() => page.locator('[data-metric="deliveries-retrying"]').textContent()).toMatch(/^[1-9]\d*$/);
    expect(Number(await page.locator('[data-metric="deliveries-failed"]').textContent())).toBeGreaterThanOrEqual(1);
    expect(Number(await page.locator('[data-metric="deliveries-dropped"]').textContent())).toBeGreaterThanOrEqual(1);
    expect(await page.locator(`[data-troubled-module="${retry}"]`).textContent()).toContain('1 waiting or retrying');
    expect(await page.locator(`[data-troubled-module="${fail}"]`).textContent()).toContain('1 failed (1 h)');
    expect(await page.locator(`[data-troubled-module="${drop}"]`).textContent()).toContain('1 dropped (1 h)');
    expect(await page.locator(`[data-troubled-module="${gone}"]`).textContent()).toContain('event webhook turned off');
    expect(await page.locator(`[data-troubled-module="${gone}"]`).textContent()).toContain('410');
    await page.locator(`[data-troubled-module="${retry}"] a`).click();
    await page.getByRole('heading', { level: 1, name: `Module ${retry}` }).waitFor();
    await page.locator('[data-delivery="pending"]').waitFor();
    expect(await page.locator('[data-turned-off]').count()).toBe(0);

    // the module turned off by its 410 says so on its page, and turns on again from there
    await page.goBack();
    await page.locator(`[data-troubled-module="${gone}"] a`).click();
    await page.getByRole('heading', { level: 1, name: `Module ${gone}` }).waitFor();
    const off = page.locator('[data-turned-off]');
    expect(await off.textContent()).toContain('Event webhook turned off');
    await off.getByRole('button', { name: 'Turn on again' }).click();
    await off.waitFor({ state: 'detached' });
    expect((await api('GET', `/projects/1/smartModules/${gone}`)).eventWebhook.enabled).toBe(true);
  });
});

describe('each page reads what it shows once', () => {
  it('the overview, the modules list, a module page, the devices page and a device page ask for each list once', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    const m = unique('once');
    await api('POST', '/projects/1/smartModules', {
      id: m,
      moduleType: 'webhooks',
      eventWebhook: { url: `${receiver.base}/o/200`, subscriptions: 'once-event' },
    });
    expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'once-event', eventData: {} } })).status).toBe(204);
    await poll(async () => (await t.http('GET', `/projects/1/smartModules/${m}/deliveries?status=success`, { token: t.adminKey })).body.length).toBe(1);
    const { page, requests } = await signedIn({ hash: 'overview' });
    const dup = () => requests.filter((r, i) => requests.indexOf(r) !== i);

    // the overview: one count per module and status (the positive control: this module's last one)
    await poll(() => requests.some((r) => r.includes(`/smartModules/${m}/deliveries?status=pending`))).toBe(true);
    await page.locator('[data-metric="deliveries-succeeded"]').filter({ hasText: /^\d+$/ }).waitFor();
    expect(dup()).toEqual([]);

    requests.length = 0;
    await setHash(page, '#/modules');
    await page.getByRole('link', { name: m, exact: true }).waitFor();
    expect(requests).toEqual(['GET /projects/1/smartModules']);

    requests.length = 0;
    await page.getByRole('link', { name: m, exact: true }).click();
    await page.locator('[data-delivery="success"]').waitFor();
    expect(requests.filter((r) => r.includes('/deliveries'))).toEqual([`GET /projects/1/smartModules/${m}/deliveries?skip=0&limit=100`]);
    expect(dup()).toEqual([]);

    requests.length = 0;
    await setHash(page, '#/devices');
    await page.locator(`tr[data-device="${d.id}"] td[data-field="home"]`).filter({ hasText: 'home' }).waitFor();
    expect(requests.filter((r) => r.startsWith('GET /homes')).length).toBe(1);
    expect(requests.filter((r) => r.startsWith('GET /devices?')).length).toBe(1);
    expect(dup()).toEqual([]);

    requests.length = 0;
    await setHash(page, `#/devices/${d.id}`);
    await page.locator('[data-kv-state="live"]').waitFor();
    await page.locator('[data-history-total]').waitFor({ state: 'attached' });
    await page.getByText('No log requests.').waitFor();
    expect(dup()).toEqual([]);
  });
});

describe('reports', () => {
  it('follows a run started by hand until it ends, with no Refresh click', async () => {
    const name = unique('followed report');
    await api('POST', '/scheduledReports', {
      projectId: 1,
      name,
      kind: 'devices',
      format: 'csv',
      schedule: { cron: '0 6 * * *', timezone: 'UTC' },
      destination: { type: 'store' },
      enabled: true,
    });
    const { page } = await signedIn({ hash: 'reports' });
    await page.getByRole('button', { name, exact: true }).click();
    const runs = page.locator('.runs');
    await runs.getByRole('button', { name: 'Run now' }).click();
    await runs.locator('[data-run]').first().waitFor();
    await runs.locator('[data-run="success"]').waitFor({ timeout: 30_000 });
  });
});

describe('phone width', () => {
  it('no page is wider than a 390 px screen, and the folded menu closes on Back', async () => {
    const homeId = await api('POST', '/homes', { name: 'a home with a rather long name for a phone', projectId: 1 });
    const d = await t.seedDevice({ homeId: homeId.id });
    await api('PATCH', `/devices/${d.id}`, { name: 'a lamp with a rather long name in the kitchen', tag: 'kitchen-and-dining-room' });
    const m = unique('phone');
    await api('POST', '/projects/1/smartModules', { id: m, moduleType: 'webhooks', eventWebhook: { url: `${receiver.base}/p/200` } });
    const { page } = await signedIn({ width: 390 });
    for (const [hash, ready] of [
      ['overview', '[data-metric="devices-total"]'],
      ['devices', `tr[data-device="${d.id}"]`],
      [`devices/${d.id}`, '[data-kv-state="live"]'],
      ['homes', '[data-home]'],
      ['classes', 'h1'],
      ['keys', 'h1'],
      ['users', 'h1'],
      ['modules', `a[href="#/modules/${m}"]`],
      [`modules/${m}`, 'form'],
      ['reports', 'h1'],
      ['logs', 'table'],
      ['devices/abc', '[data-not-found]'],
    ]) {
      await setHash(page, `#/${hash}`);
      await page.locator(ready).first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), hash).toBeLessThanOrEqual(390);
    }
    // the folded menu closes on a move by Back as it does on its own links
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.locator('nav#nav').waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    await page.locator('nav#nav').waitFor({ state: 'hidden' });
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('false');
  });
});
