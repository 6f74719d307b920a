// The web console in a real browser (Debian Chromium through playwright-core) against a real
// Hearth with real devices (MQTT.js): sign-in both ways, live status, KV both ways, commands,
// a webhook module with its delivery log and a redelivery, a report run, and an expired session.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { afterEffects, holdNextRead, launchChromium, newTab, signInWithKey, statusReceiver, type StatusReceiver } from '../../helpers/browser.js';
import { inbox, mqttConnect } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

// a browser, a server and a device in one test: slow on a busy machine, waited for by events
vi.setConfig({ testTimeout: 90_000 });

let t: TestHearth;
let browser: Browser;
let receiver: StatusReceiver;

beforeAll(async () => {
  await buildConsole();
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true } });
  browser = await launchChromium();
  receiver = await statusReceiver();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

const newPage = () => newTab(browser);

/** the machine may be busy: what the page or a receiver shows is waited for, up to 15 s */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

const statusCell = (page: Page, d: SeededDevice) => page.locator(`tr[data-device="${d.id}"] td.status`);

describe('sign-in', () => {
  it('takes a project API key, keeps it out of cookies, and signs out', async () => {
    const page = await newPage();
    await signInWithKey(page, t);
    expect(await page.locator('[data-metric="devices-total"]').textContent()).toMatch(/^\d+$/);
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate("sessionStorage.getItem('hearth.console.session')")).toContain('pk.');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('hearth.console.session')")).toBeNull();
  });

  it('takes a user email and password, and shows a wrong password in words', async () => {
    const email = `console-${Date.now()}@example.test`;
    const created = await t.http('POST', '/users', {
      token: t.adminKey,
      body: { projectId: 1, email, password: 'correct horse battery', name: 'Console User' },
    });
    expect(created.status).toBe(201);
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toMatch(/not valid|sign in/i);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.locator('.who').textContent()).toContain('user');
  });

  it('returns to sign-in when the session has ended', async () => {
    const email = `expire-${Date.now()}@example.test`;
    await t.http('POST', '/users', { token: t.adminKey, body: { projectId: 1, email, password: 'correct horse battery', name: 'Soon Gone' } });
    const page = await newPage();
    await page.goto(`${t.httpUrl}/console`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const token = (await page.evaluate("JSON.parse(sessionStorage.getItem('hearth.console.session')).token")) as string;
    expect((await t.http('DELETE', '/userSession', { token })).status).toBe(204);
    // the next request the console makes finds the session gone (the stream may say so first)
    await page.evaluate("location.hash = '#/devices'");
    await page.getByText('Your session has ended').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('hearth.console.session')")).toBeNull();
  });
});

/**
 * a new device named `<what> <time>`, and a signed-in tab on Devices searching for that name: the
 * search taken (after its typing pause: it is in the hash) and the device's row shown offline
 */
async function devicesPageFor(what: string): Promise<{ d: SeededDevice; name: string; page: Page }> {
  const d = await t.seedDevice();
  const name = `${what} ${Date.now()}`;
  expect((await t.http('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { name } })).status).toBe(204);
  const page = await newPage();
  await signInWithKey(page, t);
  await page.getByRole('link', { name: 'Devices', exact: true }).click();
  await page.getByLabel('Search').fill(name);
  await poll(() => page.evaluate('location.hash')).toContain('search=');
  await poll(() => statusCell(page, d).textContent()).toBe('offline');
  return { d, name, page };
}

describe('devices', () => {
  it('turns a row online when the device connects and offline when it leaves, without reload', async () => {
    const { d, page } = await devicesPageFor('live lamp');
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    const c = await mqttConnect(t, d);
    await poll(() => statusCell(page, d).textContent()).toBe('online');
    await c.endAsync();
    await poll(() => statusCell(page, d).textContent()).toBe('offline');
    expect(navigations.filter((u) => !u.includes('#/'))).toEqual([]);
  });

  it('keeps a disconnect that arrives while a fresh list is in flight (the read was answered while the device was online)', async () => {
    // the search taken, so the status filter below asks the one read held
    const { d, name, page } = await devicesPageFor('race lamp');
    const c = await mqttConnect(t, d);
    await poll(() => statusCell(page, d).textContent()).toBe('online');
    // the next read's answer (the device online, with a new name to tell it from the page before)
    // is held in the browser until the stream has said the device left
    expect((await t.http('PATCH', `/devices/${d.id}`, { token: t.adminKey, body: { name: `${name} renamed` } })).status).toBe(204);
    const read = await holdNextRead(page, (u) => u.pathname === '/devices' && u.searchParams.get('isConnected') === 'true');
    await page.getByLabel('Status').selectOption('online');
    await read.answered;
    await c.endAsync();
    await poll(() => statusCell(page, d).textContent()).toBe('offline');
    read.release();
    // positive control: the held page has been drawn, and the effects of that render have run
    await poll(() => page.locator(`tr[data-device="${d.id}"] a`).textContent()).toBe(`${name} renamed`);
    await afterEffects(page);
    expect(await statusCell(page, d).textContent()).toBe('offline');
  });

  it('creates a device, shows its key and claim code once, and deletes it after a confirmation', async () => {
    const page = await newPage();
    await signInWithKey(page, t);
    await page.getByRole('link', { name: 'Devices', exact: true }).click();
    await page.getByRole('form', { name: 'add a device' }).getByLabel('Name').fill('console lamp');
    await page.getByRole('form', { name: 'add a device' }).getByRole('button', { name: 'Create' }).click();
    const key = await page.locator('[data-secret="API key"]').textContent();
    expect(key).toMatch(/^dk\./);
    expect(await page.locator('[data-secret="Claim code"]').textContent()).toBeTruthy();
    const id = Number(await page.locator('.once a').textContent());
    expect((await t.http('GET', `/devices/${id}`, { token: t.adminKey })).body.name).toBe('console lamp');
    await page.getByLabel('Search').fill(String(id));
    const row = page.locator(`tr[data-device="${id}"]`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(async () => (await t.http('GET', `/devices/${id}`, { token: t.adminKey })).status).toBe(404);
  });
});

describe("a device's page", () => {
  it('edits KV in the console and the device receives it over MQTT, and the other way', async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d);
    const box = inbox(c);
    await c.subscribeAsync(`/devices/${d.id}/kv`, { qos: 1 });
    expect((await box.next(`/devices/${d.id}/kv`)).action).toBe('reload');
    const page = await newPage();
    await signInWithKey(page, t);
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    await page.locator('[data-kv-state="live"]').waitFor();
    await page.getByRole('button', { name: 'Add a key' }).click();
    await page.getByLabel('Key', { exact: true }).fill('brightness');
    await page.getByLabel('Value (JSON)').fill('{"level": 80');
    await page
      .getByText(/JSON|Expected|Unexpected/)
      .first()
      .waitFor();
    expect(await page.getByRole('form', { name: 'edit a key' }).getByRole('button', { name: 'Save' }).isEnabled()).toBe(true);
    await page.getByLabel('Value (JSON)').fill('{"level": 80}');
    await page.getByRole('form', { name: 'edit a key' }).getByRole('button', { name: 'Save' }).click();
    const set = await box.next(`/devices/${d.id}/kv`);
    expect(set).toMatchObject({ action: 'set', key: 'brightness', value: { level: 80 } });

    c.publish(`/devices/${d.id}/kv`, JSON.stringify({ action: 'set', key: 'mode', value: 'eco' }), { qos: 1 });
    await poll(() =>
      page
        .locator('tr[data-kv-key="mode"] .value')
        .textContent()
        .catch(() => null),
    ).toBe('"eco"');
  });

  it('sends a command the device receives, checks the action as you type, and explains DEVICE_OFFLINE', async () => {
    const d = await t.seedDevice();
    const page = await newPage();
    await signInWithKey(page, t);
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    await page.getByLabel('Action').fill('doEcho');
    await page.locator('[data-hint="action"]').waitFor();
    expect(await page.getByRole('form', { name: 'send a command' }).getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await page.getByLabel('Action').fill('light-on');
    await page.getByLabel('Parameters (JSON object)').fill('{"level": 5}');
    await page.getByRole('form', { name: 'send a command' }).getByRole('button', { name: 'Send' }).click();
    await page.getByText(/offline: a command reaches only a device with a live/).waitFor();

    const c = await mqttConnect(t, d);
    const box = inbox(c);
    await c.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    await page.locator('.status[data-status="online"]').waitFor();
    await page.getByRole('form', { name: 'send a command' }).getByRole('button', { name: 'Send' }).click();
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'light-on', parameters: { level: 5 } });
    await page.getByText('Delivered “light-on”').waitFor();
  });
});

describe('smart modules and reports', () => {
  it('creates a webhook module, shows a delivery with its attempt, and redelivers it', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    const page = await newPage();
    await signInWithKey(page, t);
    await page.getByRole('link', { name: 'Smart modules' }).click();
    const form = page.getByRole('form', { name: 'create a webhook module' });
    const moduleId = `hook-${Date.now()}`;
    await form.getByLabel('Module id').fill(moduleId);
    await form.getByLabel('Webhook URL').fill(receiver.base);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: moduleId }).click();

    const before = receiver.received.length;
    expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'doorOpened', eventData: { door: 'front' } } })).status).toBe(204);
    await poll(() => receiver.received.length).toBe(before + 1);
    // the delivery is listed at once; its outcome is recorded a moment later, and the log follows
    // a delivery on its way by itself
    await page.getByRole('button', { name: 'Refresh' }).click();
    const delivery = page.locator('[data-delivery="success"]').first();
    await delivery.waitFor({ timeout: 30_000 });
    await delivery.getByRole('button').first().click();
    await page.locator('[data-attempt="0"]').waitFor();
    expect(await page.locator('[data-attempt="0"]').textContent()).toContain('200');
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await poll(() => receiver.received.length).toBe(before + 2);
    await poll(async () => page.locator('[data-attempt="1"]').count()).toBeGreaterThan(0);
  });

  it('previews a body template against a sample event, with an error shown at its position', async () => {
    const page = await newPage();
    await signInWithKey(page, t);
    await page.getByRole('link', { name: 'Smart modules' }).click();
    const form = page.getByRole('form', { name: 'create a webhook module' });
    await form.getByText('Advanced: header and body templates').click();
    await form.getByLabel('Body template').fill('{"t": {{eventData.celsius}');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.locator('pre.caret').waitFor();
    expect(await form.locator('pre.caret').textContent()).toMatch(/line 1, column \d+/);
    await form.getByLabel('Body template').fill('{"t": {{eventData.celsius}}}');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.locator('[data-preview] pre').nth(1).waitFor();
    expect(await form.locator('[data-preview] pre').nth(1).textContent()).toBe('{"t": 21.5}');
  });

  it('creates a report and runs it now to success', async () => {
    const page = await newPage();
    await signInWithKey(page, t);
    await page.getByRole('link', { name: 'Reports' }).click();
    const name = `devices ${Date.now()}`;
    await page.getByLabel('Name').fill(name);
    await page.getByRole('form', { name: 'create a report' }).getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name }).click();
    await page.getByRole('button', { name: 'Run now' }).click();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh runs' }).click();
          return page.locator('[data-run="success"]').count();
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
  });
});

describe('pages', () => {
  it('serves the console with a strict Content-Security-Policy and no inline script', async () => {
    const res = await fetch(`${t.httpUrl}/console`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await res.text()).not.toMatch(/<script>(?!<\/script>)/);
    expect((await fetch(`${t.httpUrl}/console/secret.txt`)).status).toBe(404);
  });

  it('renders every section at a phone width without a CSP violation', async () => {
    const page = await newTab(browser, { width: 390 });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    await signInWithKey(page, t);
    for (const [path, heading] of [
      ['devices', 'Devices'],
      ['homes', 'Homes'],
      ['classes', 'Device classes'],
      ['keys', 'Project API keys'],
      ['users', 'Users'],
      ['modules', 'Smart modules'],
      ['reports', 'Scheduled reports'],
      ['logs', 'Logs'],
      ['overview', 'Overview'],
    ]) {
      await page.goto(`${t.httpUrl}/console#/${path}`);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    }
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(violations).toEqual([]);
  });
});
