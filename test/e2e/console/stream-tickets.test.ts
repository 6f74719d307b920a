// The console opens its WebSockets (the event stream, a device's live KV) with single-use tickets
// (docs/api.md#stream-tickets): no credential appears in any URL the browser requests, so a proxy's
// request log never holds one. Real Chromium against a real Hearth.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { launchChromium, newTab, signInWithKey } from '../../helpers/browser.js';
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

describe('the console', () => {
  it('opens its event stream and the KV socket with tickets, never with the credential in a URL', async () => {
    const d = await t.seedDevice();
    const page = await newTab(browser);
    const urls: string[] = [];
    const sockets: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    page.on('websocket', (ws) => sockets.push(ws.url()));

    // signed in through the form; the stream is live: its socket opened
    await signInWithKey(page, t);
    await page.goto(`${t.httpUrl}/console#/devices/${d.id}`);
    await page.locator('[data-kv-state="live"]').waitFor();

    expect(sockets.some((u) => u.includes('/userSession/websocket?ticket=wt.'))).toBe(true);
    expect(sockets.some((u) => u.includes(`/devices/${d.id}/kv?ticket=wt.`))).toBe(true);
    const all = [...urls, ...sockets];
    const secret = t.adminKey.slice(3);
    expect(all.filter((u) => u.includes('authToken') || u.includes(secret) || u.includes(encodeURIComponent(t.adminKey)))).toEqual([]);
  });
});
