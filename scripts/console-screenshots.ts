// `npm run console:screenshots`: starts a Hearth of its own (a temporary data directory, free
// ports), fills it through the public API with 1,000 devices, a home, a webhook module, KV,
// events and a few live MQTT devices, then opens the console in Debian's Chromium and writes
// screenshots of the main pages to docs/console/. It prints how long the device table takes to
// show its first page with 1,000 devices in the project (median of 5 loads).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import mqtt from 'mqtt';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config/load.js';
import { startHearth } from '../src/main.js';
import { buildConsole } from './build-console.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs/console');
const DEVICES = 1000;

const dataDir = mkdtempSync(join(tmpdir(), 'hearth-console-shots-'));
await buildConsole();
const hearth = await startHearth(
  loadConfig({
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_LOG_LEVEL: 'warn',
    HEARTH_RATE_LIMIT_ENABLED: 'false',
    HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  }),
  pino({ level: 'warn' }),
);
const base = `http://127.0.0.1:${hearth.httpPort}`;
const key = hearth.adminKey!;
const api = async (method: string, path: string, body?: unknown, token = key) => {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `ModeCloud ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

const clients: mqtt.MqttClient[] = [];
try {
  const home = await api('POST', '/homes', { name: 'Lab', projectId: 1 });
  const rooms = ['kitchen', 'hall', 'garage', 'office', 'porch'];
  const devices: { id: number; apiKey: string }[] = [];
  for (let i = 0; i < DEVICES; i += 50) {
    devices.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, DEVICES - i) }, (_, j) =>
          api('POST', '/devices', {
            projectId: 1,
            deviceClass: 'default',
            name: `${rooms[(i + j) % rooms.length]} sensor ${i + j + 1}`,
            tag: rooms[(i + j) % rooms.length],
            homeId: i + j < 20 ? home.id : undefined,
          }),
        ),
      )),
    );
  }
  await api('POST', '/projects/1/dataSources', { id: 'readings', name: 'Readings', type: 'store' });
  await api('POST', '/projects/1/smartModules', {
    id: 'alerts',
    moduleType: 'webhooks',
    description: 'sends events to the alerting service',
    eventWebhook: { url: 'http://127.0.0.1:9/alerts', subscriptions: 'temperature\n_deviceConnected_' },
  });
  for (const d of devices.slice(0, 12)) {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${hearth.mqttPort}`, { username: String(d.id), password: d.apiKey, reconnectPeriod: 0 });
    clients.push(c);
  }
  const first = devices[0];
  await api('PUT', `/devices/${first.id}/kv/targetTemperature`, { value: 21 });
  await api('PUT', `/devices/${first.id}/kv/schedule`, { value: { weekdays: '06:30', weekend: '08:00' } });
  const now = Date.now();
  const records = Array.from({ length: 60 }, (_, i) => ({
    timestamp: new Date(now - (60 - i) * 60_000).toISOString(),
    celsius: 20 + Math.sin(i / 6) * 2,
    humidity: 45 + Math.cos(i / 9) * 5,
  }));
  await api('POST', `/devices/${first.id}/data`, { data: records }, first.apiKey);
  for (let i = 0; i < 40; i++)
    await api('PUT', `/devices/${devices[i % 12].id}/event`, { eventType: 'temperature', eventData: { celsius: 20 + (i % 5) } }, devices[i % 12].apiKey);

  const executablePath = execFileSync('sh', ['-c', 'command -v chromium']).toString().trim();
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${base}/console`);
    await page.getByRole('tab', { name: 'Project API key' }).click();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('[data-live="on"]').waitFor();

    // the device table with 1,000 devices: a fresh load of the page, timed to its first rows
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(`${base}/console#/overview`);
      await page.reload();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      const t0 = Date.now();
      await page.evaluate("location.hash = '#/devices'");
      await page.locator('tr[data-device]').nth(49).waitFor();
      times.push(Date.now() - t0);
    }
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      await page.goto(`${base}/console#/devices`);
      await page.reload();
      await page.locator('tr[data-device]').nth(49).waitFor();
      cold.push(Date.now() - t0);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `device table, ${DEVICES} devices, first page of 50: ${median(times)} ms from the Devices link (median of 5), ${median(cold)} ms for a full page load to the table (median of 5)`,
    );

    mkdirSync(OUT, { recursive: true });
    const shoot = async (hash: string, name: string, ready: string) => {
      await page.goto(`${base}/console#/${hash}`);
      await page.locator(ready).first().waitFor();
      await page.evaluate('window.scrollTo(0, 0)');
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
      console.log(`  docs/console/${name}.png`);
    };
    await shoot('overview', 'overview', '.chart canvas');
    await shoot('devices', 'devices', 'tr[data-device]');
    await shoot(`devices/${first.id}`, 'device', '[data-kv-state="live"]');
    await shoot('modules/alerts', 'module', 'form');
    await shoot('logs', 'logs', 'h1');
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${base}/console`);
    await phone.evaluate(
      `sessionStorage.setItem('hearth.console.session', ${JSON.stringify(JSON.stringify({ token: key, kind: 'project key', projectId: 1, who: 'admin' }))})`,
    );
    await phone.goto(`${base}/console#/devices`);
    await phone.reload();
    await phone.locator('tr[data-device]').first().waitFor();
    // the device list, not the create form above it: what a phone shows once scrolled to it
    await phone.getByRole('heading', { name: 'All devices' }).evaluate((h) => h.scrollIntoView());
    await phone.screenshot({ path: join(OUT, 'devices-phone.png') });
    console.log('  docs/console/devices-phone.png');
  } finally {
    await browser.close();
  }
} finally {
  for (const c of clients) await c.endAsync(true);
  await hearth.close();
  rmSync(dataDir, { recursive: true, force: true });
}
