// The console at fleet scale in Chromium against a real Hearth: the overview shows the fleet
// figures (GET /projects/{id}/stats) exactly, counts events live from the stream, and shows
// deliveries succeeded, failed, retrying and the oldest pending age; the device list pages on the
// server by id with search and filters kept in the hash.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { launchChromium, signedInTab, statusReceiver, type StatusReceiver } from '../../helpers/browser.js';
import { seedDevice as seedStoreDevice } from '../../helpers/store-seed.js';
import { mqttConnect } from '../broker/clients.js';
import { buildConsole } from '../../../scripts/build-console.js';

vi.setConfig({ testTimeout: 120_000 });

let t: TestHearth;
let browser: Browser;
/** answers with the status named by the last path segment: /hook/200, /hook/500 */
let receiver: StatusReceiver;

beforeAll(async () => {
  await buildConsole();
  // a failed attempt waits an hour for its retry: a retrying delivery stays so while the test looks
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true, retryScheduleSeconds: [3600] } });
  browser = await launchChromium();
  receiver = await statusReceiver();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

const signedIn = (hash: string) => signedInTab(browser, t, { hash });

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });
const api = async (method: string, path: string, body?: unknown) => {
  const r = await t.http(method, path, { token: t.adminKey, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
};
const metric = (page: Page, name: string) => page.locator(`[data-metric="${name}"]`).textContent();
const eventsInHour = async () => ((await api('GET', '/projects/1/stats')).events.perMinute as { count: number }[]).reduce((n, m) => n + m.count, 0);

describe('the overview', () => {
  it('shows the fleet figures exactly, events counted live from the stream, and the deliveries', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    // by event type: `fleet-ok` is delivered, `fleet-bad` fails at once (a 404), `fleet-flaky` waits for its retry (a 500)
    for (const [id, type, status] of [
      ['fleet-ok', 'fleet-ok', 200],
      ['fleet-bad', 'fleet-bad', 404],
      ['fleet-flaky', 'fleet-flaky', 500],
    ] as const)
      await api('POST', '/projects/1/smartModules', {
        id,
        moduleType: 'webhooks',
        eventWebhook: { url: `${receiver.base}/${id}/${status}`, subscriptions: type },
      });

    const { page } = await signedIn('overview');
    const devices = (await api('GET', '/projects/1/stats')).devices;
    await poll(() => metric(page, 'devices-total')).toBe(String(devices.total));
    await poll(() => metric(page, 'devices-connected')).toBe('0');

    // a real MQTT device connects: its _deviceConnected_ on the stream refreshes the figures
    const client = await mqttConnect(t, d);
    await poll(() => metric(page, 'devices-connected')).toBe('1');
    // settled: what the page shows is what the service counted (the connect event included)
    let base = 0;
    await poll(async () => {
      base = await eventsInHour();
      return (await metric(page, 'events-hour')) === String(base);
    }).toBe(true);
    expect(base).toBeGreaterThanOrEqual(1);

    // N events: the page adds each as it arrives on the stream, and the service counted the same
    const types = ['fleet-ok', 'fleet-ok', 'fleet-ok', 'fleet-ok', 'fleet-bad', 'fleet-bad', 'fleet-flaky'];
    for (const eventType of types) await client.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType, eventData: {} }), { qos: 1 });
    await poll(() => metric(page, 'events-hour')).toBe(String(base + types.length));
    expect(await eventsInHour()).toBe(base + types.length);

    // the deliveries settle (4 succeeded, 2 failed, 1 waiting for its retry); a fresh read shows them exactly
    await poll(async () => (await api('GET', '/projects/1/stats')).deliveries).toMatchObject({ succeeded: 4, failed: 2, retrying: 1 });
    await page.reload();
    await page.locator('[data-live="on"]').waitFor();
    await poll(() => metric(page, 'deliveries-succeeded')).toBe('4');
    expect(await metric(page, 'deliveries-failed')).toBe('2');
    expect(await metric(page, 'deliveries-retrying')).toBe('1');
    expect(await metric(page, 'deliveries-oldest-pending')).toMatch(/^\d+ (s|min)$/);
    expect(await metric(page, 'events-hour')).toBe(String(base + types.length));
    expect(await metric(page, 'devices-connected')).toBe('1');
  });
});

describe('the device list', () => {
  it('pages on the server by id, filters by search, online, class, tag and home, and keeps them in the hash', async () => {
    await t.deps.store.deviceClasses.create({ projectId: 1, id: 'sensor', name: 'Sensor', description: null, creationTime: new Date().toISOString() });
    const homeId = await t.seedHome();
    const seeded: { id: number; key: string; i: number; tag: string; cls: string; home: boolean }[] = [];
    for (let i = 0; i < 120; i++) {
      const tag = i % 3 === 0 ? 'north' : 'south';
      const cls = i % 2 ? 'sensor' : 'default';
      const home = i % 4 === 0;
      const { device, key } = await seedStoreDevice(t.deps, { name: `fleet-${i}`, tag, deviceClass: cls, homeId: home ? homeId : null });
      seeded.push({ id: device.id, key, i, tag, cls, home });
    }
    const ids = seeded.map((s) => s.id);
    // two in no home and one in the home online
    const online = [seeded[1], seeded[2], seeded[4]];
    for (const s of online) await mqttConnect(t, { id: s.id, key: s.key, projectId: 1, deviceClass: s.cls, homeId: s.home ? homeId : null });
    await poll(async () => (await api('GET', '/devices?projectId=1&isConnected=true&search=fleet-')).length).toBe(3);

    const { page, requests } = await signedIn('devices');
    const filters = page.getByRole('search', { name: 'filter devices' });
    const rows = async () => (await page.locator('tr[data-device]').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-device'))))) as number[];
    const next = page.getByRole('navigation', { name: 'pages' }).getByRole('button', { name: 'Next' });
    const previous = page.getByRole('navigation', { name: 'pages' }).getByRole('button', { name: 'Previous' });

    await filters.locator('input[name="search"]').fill('fleet-');
    await poll(() => page.evaluate('location.hash')).toBe('#/devices?search=fleet-');
    await poll(rows).toEqual(ids.slice(0, 50));
    await next.click();
    await poll(rows).toEqual(ids.slice(50, 100));
    expect(await page.evaluate('location.hash')).toBe(`#/devices?search=fleet-&after=${ids[49]}`);
    await next.click();
    await poll(rows).toEqual(ids.slice(100));
    expect(await next.isDisabled()).toBe(true);
    await previous.click();
    await poll(rows).toEqual(ids.slice(50, 100));
    await previous.click();
    await poll(rows).toEqual(ids.slice(0, 50));
    expect(await previous.isDisabled()).toBe(true);

    // class and tag
    await filters.locator('input[name="class"]').fill('sensor');
    await filters.locator('input[name="tag"]').fill('north');
    const northSensors = seeded.filter((s) => s.cls === 'sensor' && s.tag === 'north').map((s) => s.id);
    expect(northSensors).toHaveLength(20);
    await poll(rows).toEqual(northSensors);
    expect(await next.isDisabled()).toBe(true);

    // online devices in no home (class and tag cleared)
    await filters.locator('input[name="class"]').fill('');
    await filters.locator('input[name="tag"]').fill('');
    await filters.locator('select[name="status"]').selectOption('online');
    await filters.locator('select[name="home"]').selectOption('none');
    await poll(rows).toEqual([seeded[1].id, seeded[2].id]);
    await filters.locator('select[name="home"]').selectOption('in');
    await poll(rows).toEqual([seeded[4].id]);
    await filters.locator('select[name="status"]').selectOption('offline');
    await poll(rows).toEqual(seeded.filter((s) => s.home && s !== seeded[4]).map((s) => s.id));
    expect(await page.evaluate('location.hash')).toBe('#/devices?search=fleet-&status=offline&home=in');

    // the hash is the list: a reload shows the same filters and rows
    await page.reload();
    await page.locator('[data-live="on"]').waitFor();
    await poll(rows).toEqual(seeded.filter((s) => s.home && s !== seeded[4]).map((s) => s.id));
    expect(await filters.locator('input[name="search"]').inputValue()).toBe('fleet-');
    expect(await filters.locator('select[name="status"]').inputValue()).toBe('offline');
    expect(await filters.locator('select[name="home"]').inputValue()).toBe('in');

    // every list read is a page without the count
    const lists = requests.filter((r) => r.startsWith('GET /devices?'));
    expect(lists.length).toBeGreaterThan(5);
    for (const r of lists) expect(r).toContain('total=false');
  });
});
