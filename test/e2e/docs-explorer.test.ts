// The explorer at /docs (docs/api.md#explorer), in a real Chromium against a real server: the page
// loads offline (Scalar's bundle from the build's dist/explorer, nothing from any other origin)
// under its Content-Security-Policy with no violation reported and no request failing (the
// favicon included), an operation is found by search, the Authorization value field shows the
// form `ModeCloud <key>`, and its try-it sends `Authorization: ModeCloud <key>` and shows the live
// answer. Needs `npm run build` (the bundle is a build output). Set HEARTH_DOCS_SCREENSHOT=<path>
// to keep a picture of the explorer.
import { execSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function chromiumPath(): string {
  try {
    return execSync('command -v chromium', { shell: '/bin/bash', encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed (apt-get install -y chromium; .ci/run does it)');
  }
}

describe('/docs explorer in Chromium', () => {
  let h: TestHearth;
  let browser: Browser;
  beforeAll(async () => {
    h = await startTestHearth();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, timeout: 120_000 });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('finds GET /auth by search and runs it with the ModeCloud key, offline', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // a busy machine renders the reference slowly: each step waits for its element, up to this
    page.setDefaultTimeout(90_000);
    const foreign: string[] = [];
    const authHeaders: (string | undefined)[] = [];
    const failed: string[] = [];
    const violations: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin !== h.httpUrl && u.protocol !== 'data:' && u.protocol !== 'blob:') foreign.push(r.url());
      if (u.origin === h.httpUrl && u.pathname === '/auth') authHeaders.push(r.headers().authorization);
    });
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400 && new URL(r.url()).pathname !== '/auth') failed.push(`${r.url()}: ${r.status()}`);
    });
    // a CSP violation is reported to the page as an event and to the console as an error
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    // (a string: this file is compiled without the DOM's types)
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });

    const docs = await page.goto(`${h.httpUrl}/docs`);
    expect(docs?.headers()['content-security-policy']).toContain("default-src 'none'");
    // the reference has rendered the document: its groups are in the sidebar
    await page.getByText('Hearth API', { exact: true }).first().waitFor({ timeout: 120_000 });
    await page.locator('button').filter({ hasText: 'device key-value' }).first().waitFor({ timeout: 120_000 });

    // search: the search box finds the operation by words of its summary
    await page.locator('button').filter({ hasText: 'Search' }).first().click();
    await page.getByRole('combobox').or(page.locator('input[type=search], input[placeholder*="Search" i]')).first().fill('presented credential');
    const hit = page.getByRole('option').filter({ hasText: 'presented credential' }).filter({ hasText: '/auth' });
    await hit.first().waitFor();
    await hit.first().click();

    // try-it for this operation opens the client
    await page.locator('button').filter({ hasText: 'Test Request' }).filter({ hasText: '(get /auth)' }).first().click();
    const value = page.locator('input[id^=scalar-client]').first();
    await value.waitFor();
    // the value field says what goes in it: the scheme word, then the key
    expect(await value.getAttribute('placeholder')).toBe('ModeCloud <key>');
    await value.fill(`ModeCloud ${h.adminKey}`);
    await page.getByText('Send', { exact: true }).first().click();

    // the live answer: 200, and the server took the credential (anonymous would be "nobody")
    await page.getByText('200 OK').first().waitFor();
    await page.getByText('"project key"').first().waitFor();
    expect(authHeaders).toContain(`ModeCloud ${h.adminKey}`);
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(failed, 'requests that failed (a favicon 404 included)').toEqual([]);
    // the page carried its icon, so the browser asked for no /favicon.ico
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
    expect(violations, 'Content-Security-Policy violations').toEqual([]);

    const shot = process.env.HEARTH_DOCS_SCREENSHOT;
    if (shot) {
      mkdirSync(dirname(shot), { recursive: true });
      await page.screenshot({ path: shot });
    }
    await page.close();
  }, 300_000);

  it('serves the explorer script from the build, not a CDN, under a Content-Security-Policy', async () => {
    const page = await fetch(`${h.httpUrl}/docs`);
    // docs/api.md#explorer: its own policy, with no eval and no other origin
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
    const html = await page.text();
    expect(html).toContain('src="/docs/scalar.js"');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${h.httpUrl}/docs/scalar.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect((await js.text()).length).toBeGreaterThan(100_000);
  });
});
