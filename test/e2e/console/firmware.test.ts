// The console's Firmware pages in Chromium against a real Hearth: a bundle added from the page, a
// file uploaded with its progress bar (the bytes served back exactly), a rollout started from the
// form over four devices, its counts moving live as real MQTT devices download, install and fail,
// the devices table filtered by state, and pause / resume / abort with their confirmations (the
// abort cancels the update still waiting for the device that never connected).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import type { MqttClient } from 'mqtt';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { launchChromium, signedInTab } from '../../helpers/browser.js';
import { inbox, mqttConnect, type Inbox } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

// a browser, a server and four devices in one test: slow on a busy machine, waited for by events
vi.setConfig({ testTimeout: 180_000 });

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

const signedIn = async (hash: string) => (await signedInTab(browser, t, { hash, timeoutMs: 30_000 })).page;

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000, interval: 100 });
const api = async (method: string, path: string, body?: unknown) => {
  const r = await t.http(method, path, { token: t.adminKey, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
};

/** a test device on MQTT, subscribed to its commands */
async function online(d: SeededDevice): Promise<{ c: MqttClient; box: Inbox }> {
  const c = await mqttConnect(t, d);
  const box = inbox(c);
  await c.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
  return { c, box };
}

describe('the Firmware pages', () => {
  it('uploads a file with its progress, starts a rollout, follows it live as devices install and fail, pauses, resumes and aborts it', async () => {
    const bundleId = `fw-${Date.now().toString(36)}`;
    const page = await signedIn('firmware');
    await page.getByRole('heading', { level: 1, name: 'Firmware' }).waitFor();

    // a bundle from the page's form
    const add = page.getByRole('form', { name: 'add a bundle' });
    await add.getByLabel('Bundle id').fill(bundleId);
    await add.getByLabel('Components').fill('main 2.0.0');
    await add.getByRole('button', { name: 'Create bundle' }).click();
    const card = page.locator(`[data-bundle="${bundleId}"]`);
    const row = card.locator('tr[data-component="main"]');
    await row.getByText('no file').waitFor();

    // a file of 3 MiB: the progress bar ends at its size, the service keeps it byte for byte
    const bytes = randomBytes(3 * 1024 * 1024);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await row.getByLabel('file for main', { exact: true }).setInputFiles({ name: 'main.bin', mimeType: 'application/octet-stream', buffer: bytes });
    await row.getByRole('button', { name: 'Upload' }).click();
    await row.locator('[data-upload="done"]').waitFor();
    const bar = row.getByRole('progressbar', { name: 'upload of main' });
    expect(Number(await bar.getAttribute('value'))).toBe(bytes.length);
    expect(Number(await bar.getAttribute('max'))).toBe(bytes.length);
    await row.getByText(`sha256 ${sha.slice(0, 12)}`).waitFor();
    const bundle = await api('GET', `/bundles/${bundleId}`);
    expect(bundle.components[0]).toMatchObject({ componentName: 'main', checksum: `sha256:${sha}` });
    const served = await fetch(`${t.httpUrl}/bundles/${bundleId}/components/main/file`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
    expect(served.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await served.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha);

    // four devices of the bundle's class: three online, one that never connects
    const devices = [await t.seedDevice(), await t.seedDevice(), await t.seedDevice(), await t.seedDevice()];
    const [a, b, c, sleeper] = devices;
    const live = await Promise.all([a, b, c].map(online));

    // the rollout from the form: the page moves to it
    const start = page.getByRole('form', { name: 'start a rollout' });
    await start.getByLabel('Bundle').selectOption(bundleId);
    await start.getByLabel('Rollout name').fill('four devices');
    await start.getByLabel('Failure threshold (%)').fill('60');
    await start.getByLabel("A device's update waits up to").selectOption({ label: '1 hour' });
    await start.getByLabel('Target device ids').fill(devices.map((d) => d.id).join(', '));
    await start.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rollout four devices' }).waitFor();
    const rolloutId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/firmware\//, ''));
    const rollout = await api('GET', `/projects/1/rollouts/${rolloutId}`);
    expect(rollout).toMatchObject({ bundleId, name: 'four devices', failureThreshold: 60, state: 'running', counts: { targeted: 4 } });

    // from here the page is never reloaded: every figure below arrives over the event stream
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    const count = (state: string) => page.locator(`.bars [data-count="${state}"]`).textContent().then(Number);
    const stateField = page.locator('[data-field="state"]').first();

    // each online device gets its update over MQTT
    const updates = await Promise.all(live.map(({ box }, i) => box.next(`/devices/${devices[i].id}/command`, 60_000)));
    for (const u of updates)
      expect(u).toMatchObject({
        action: 'firmware-update',
        id: expect.any(String),
        parameters: { rolloutId, bundleId, components: [{ componentName: 'main', componentVersionName: '2.0.0', sha256: sha, size: bytes.length }] },
      });
    await poll(() => count('notified')).toBe(3);
    expect(await count('pending')).toBe(1);
    await page.locator('[data-field="wave"]').getByText('wave 1 of 1').waitFor();

    // a downloads its file with its own key, then records the bundle
    const fileUrl = new URL(updates[0].parameters.components[0].url, t.httpUrl);
    const got = await fetch(fileUrl, { headers: { authorization: `ModeCloud ${a.key}` } });
    expect(got.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await got.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha);
    await poll(() => count('downloading')).toBe(1);
    expect((await t.http('PUT', `/devices/${a.id}/bundle`, { token: a.key, body: { bundleId } })).status).toBe(204);
    await poll(() => count('installed')).toBe(1);
    expect(await count('downloading')).toBe(0);

    // b says its install failed: the failure rate is one in two, under the threshold of 60 %
    await live[1].c.publishAsync(
      `/devices/${b.id}/commandAck`,
      JSON.stringify({ id: updates[1].id, status: 'error', result: { error: 'flash write failed' } }),
      {
        qos: 1,
      },
    );
    await poll(() => count('failed')).toBe(1);
    await page.locator('[data-field="failure-rate"]').getByText('50% against a threshold of 60%').waitFor();
    expect(await stateField.textContent()).toBe('running');

    // the devices table, filtered by state on the service
    const table = page.getByRole('table', { name: 'devices of the rollout' });
    const stateFilter = page.getByRole('form', { name: "filter the rollout's devices" }).locator('select[name="state"]');
    const idsShown = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-device'))).sort((x, y) => x - y));
    await stateFilter.selectOption('installed');
    await page.locator('table[data-filter="installed"][data-loading="no"]').waitFor();
    await poll(idsShown).toEqual([a.id]);
    await stateFilter.selectOption('failed');
    await page.locator('table[data-filter="failed"][data-loading="no"]').waitFor();
    await poll(idsShown).toEqual([b.id]);
    await table.getByText('flash write failed').waitFor();
    await stateFilter.selectOption('');
    await poll(idsShown).toEqual(devices.map((d) => d.id).sort((x, y) => x - y));

    // pause, asked once more; then resume
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Yes, pause' }).click();
    await poll(() => stateField.textContent()).toBe('paused');
    expect((await api('GET', `/projects/1/rollouts/${rolloutId}`)).state).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Yes, resume' }).click();
    await poll(() => stateField.textContent()).toBe('running');
    expect((await api('GET', `/projects/1/rollouts/${rolloutId}`)).state).toBe('running');

    // c installs (its file came from elsewhere: recording the bundle is enough)
    expect((await t.http('PUT', `/devices/${c.id}/bundle`, { token: c.key, body: { bundleId } })).status).toBe(204);
    await poll(() => count('installed')).toBe(2);

    // abort, asked once more: the update still waiting for the sleeper is cancelled
    const abort = page.getByRole('button', { name: 'Abort' });
    await abort.click();
    await page.getByRole('button', { name: 'Cancel' }).click(); // changed its mind: nothing happens
    expect(await stateField.textContent()).toBe('running');
    await abort.click();
    await page.getByRole('button', { name: 'Yes, abort' }).click();
    await poll(() => stateField.textContent()).toBe('aborted');
    await page.getByText('This rollout is aborted; it cannot be changed.').waitFor();
    const after = await api('GET', `/projects/1/rollouts/${rolloutId}`);
    expect(after).toMatchObject({ state: 'aborted', counts: { targeted: 4, installed: 2, failed: 1 } });
    const sleeperCommands = (await api('GET', `/devices/${sleeper.id}/commands`)) as { action: string; state: string }[];
    expect(sleeperCommands.filter((x) => x.action === 'firmware-update').map((x) => x.state)).toEqual(['cancelled']);
    // a finished rollout cannot be resumed: the service says so
    const refused = await t.http('PATCH', `/projects/1/rollouts/${rolloutId}`, { token: t.adminKey, body: { state: 'running' } });
    expect(refused).toMatchObject({ status: 403, body: { reason: 'INVALID_STATE' } });
    expect(navigations.filter((u) => !u.includes('#/'))).toEqual([]);

    // the list on the Firmware page shows it as it ended
    await page.getByRole('link', { name: 'All rollouts' }).click();
    const listed = page.locator(`tr[data-rollout="${rolloutId}"]`);
    await poll(() => listed.locator('[data-field="state"]').textContent()).toBe('aborted');
    expect(await listed.locator('[data-count="installed"]').textContent()).toBe('2');
  });
});
