// The console's command outbox (docs/concepts.md#command-outbox) in Chromium against a real
// Hearth: a command sent to an offline device with "wait up to 1 hour" is queued; when the device
// connects over MQTT and answers, its state changes on the page without a reload; an unfinished
// command is cancelled from the page.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { afterEffects, holdNextRead, launchChromium, newTab, signInWithKey } from '../../helpers/browser.js';
import { inbox, mqttConnect } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

vi.setConfig({ testTimeout: 90_000 });

let t: TestHearth;
let browser: Browser;

beforeAll(async () => {
  await buildConsole();
  t = await startTestHearth();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const newPage = () => newTab(browser);

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe("a device's outbox in the console", () => {
  it('queues a command for an offline device, follows its states live, and cancels another', async () => {
    const d = await t.seedDevice();
    const page = await newPage();
    await signInWithKey(page, t);
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    const form = page.getByRole('form', { name: 'send a command' });
    await page.getByLabel('Action').fill('set-interval');
    await page.getByLabel('Parameters (JSON object)').fill('{"seconds": 600}');
    await page.getByLabel('If the device is offline').selectOption({ label: 'wait up to 1 hour' });
    await page.getByLabel(/ackRequired/).check();
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Queued “set-interval”').waitFor();
    const listed = await t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey });
    expect(listed.body).toHaveLength(1);
    const cmd = listed.body[0];
    expect(cmd).toMatchObject({ action: 'set-interval', parameters: { seconds: 600 }, ackRequired: true, state: 'queued' });
    expect(Date.parse(cmd.expirationTime) - Date.parse(cmd.creationTime)).toBe(3_600_000);
    const state = page.locator(`tr[data-command="${cmd.id}"] [data-field="state"]`);
    await poll(() => state.textContent()).toBe('queued');

    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    const c = await mqttConnect(t, d);
    const box = inbox(c);
    await c.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'set-interval', parameters: { seconds: 600 }, id: cmd.id });
    await poll(() => state.textContent()).toBe('delivered');
    await c.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: cmd.id, result: { seconds: 600 } }), { qos: 1 });
    await poll(() => state.textContent()).toBe('acked');
    await page.locator(`tr[data-command="${cmd.id}"]`).getByText('{"seconds":600}').waitFor();
    await c.endAsync();

    // another one, cancelled from the page
    await page.getByLabel('Action').fill('reboot');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Queued “reboot”').waitFor();
    const second = (await t.http('GET', `/devices/${d.id}/commands?state=queued`, { token: t.adminKey })).body[0];
    const row = page.locator(`tr[data-command="${second.id}"]`);
    await row.getByRole('button', { name: 'Cancel command' }).click();
    await row.getByRole('button', { name: 'Yes, cancel command' }).click();
    await poll(() => row.locator('[data-field="state"]').textContent()).toBe('cancelled');
    expect((await t.http('GET', `/devices/${d.id}/commands/${second.id}`, { token: t.adminKey })).body.state).toBe('cancelled');
    expect(navigations.filter((u) => !u.includes('#/'))).toEqual([]);
  });

  it('shows a command queued while a live update came in: the list read before that update is read again, not drawn over it', async () => {
    const d = await t.seedDevice();
    const queue = async (action: string) =>
      (await t.http('POST', `/devices/${d.id}/commands`, { token: t.adminKey, body: { action, parameters: {}, ttl: 3600 } })).body;
    const first = await queue('first');
    expect(first.state).toBe('queued');
    const page = await newPage();
    await signInWithKey(page, t);
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    const firstState = page.locator(`tr[data-command="${first.id}"] [data-field="state"]`);
    await poll(() => firstState.textContent()).toBe('queued');
    // a command the page does not list yet comes down the stream: the page reads its list again.
    // That read's answer (both commands queued) is held in the browser while the first is cancelled,
    // a live update the page draws over the list it has
    const read = await holdNextRead(page, (u) => u.pathname === `/devices/${d.id}/commands`);
    const second = await queue('second');
    await read.answered;
    expect((await t.http('DELETE', `/devices/${d.id}/commands/${first.id}`, { token: t.adminKey })).status).toBe(204);
    await poll(() => firstState.textContent()).toBe('cancelled');
    read.release();
    // the second command is listed, and the first stays cancelled (the held answer said queued)
    await poll(() => page.locator(`tr[data-command="${second.id}"] [data-field="state"]`).textContent()).toBe('queued');
    await afterEffects(page);
    expect(await firstState.textContent()).toBe('cancelled');
  });
});
