// Debian's Chromium driven by playwright-core (its own browser download cannot work here), for
// end-to-end tests of pages Hearth serves. Flags: headless, no sandbox (root), and nothing that
// would reach out to the network by itself. Below it, the set-up the console tests share: a tab
// that fails its test on a script error, a signed-in tab, a read held back, and a webhook receiver.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { expect, onTestFinished } from 'vitest';
import { MIN_WAIT_MS } from './wait.js';

export function chromiumPath(): string {
  const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || true']).toString().trim();
  if (!found) throw new Error('chromium is not installed (apt-get install chromium; .ci/run does it)');
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A fresh tab in a context of its own, closed when the test ends, that fails its test on any script error. */
export async function newTab(browser: Browser, opts: { width?: number; timeoutMs?: number } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 } });
  onTestFinished(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(opts.timeoutMs ?? MIN_WAIT_MS);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  onTestFinished(() => expect(errors).toEqual([]));
  return page;
}

/** what a console tab needs of the server: where it is and the admin key */
export interface ConsoleServer {
  httpUrl: string;
  adminKey: string;
}

/**
 * A tab signed in with the admin key (put in session storage, as the sign-in form leaves it) on
 * `#/<hash>`, once its event stream is live; `requests` records the API requests the page makes
 * (method and path), for tests of what a page asks for.
 */
export async function signedInTab(
  browser: Browser,
  t: ConsoleServer,
  opts: { hash?: string; width?: number; timeoutMs?: number } = {},
): Promise<{ page: Page; requests: string[] }> {
  const page = await newTab(browser, opts);
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

/** Signs `page` in through the console's own form with a project key, and waits for the overview and its live stream. */
export async function signInWithKey(page: Page, t: ConsoleServer, key = t.adminKey): Promise<void> {
  await page.goto(`${t.httpUrl}/console`);
  await page.getByRole('tab', { name: 'Project API key' }).click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.locator('[data-live="on"]').waitFor();
}

/**
 * holds the browser's next GET matching `url`: the real server answers it at once (`answered`
 * resolves then), and the page gets that answer only once `release()` is called. For the race of a
 * read answered before a live event arrives but drawn after it. Other methods pass through.
 */
export async function holdNextRead(page: Page, url: (u: URL) => boolean): Promise<{ answered: Promise<void>; release: () => void }> {
  let answeredNow!: () => void;
  const answered = new Promise<void>((r) => (answeredNow = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = false;
  const handler = async (route: Route) => {
    if (held || route.request().method() !== 'GET') return route.continue();
    held = true;
    const response = await route.fetch();
    answeredNow();
    await released;
    await route.fulfill({ response });
  };
  await page.route(url, handler);
  return { answered, release };
}

/** resolves once the page has drawn two frames and run a task after them: the effects of what it drew last (Preact runs them after a frame) have run */
export async function afterEffects(page: Page): Promise<void> {
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))');
}

export interface StatusReceiver {
  /** `http://127.0.0.1:<port>/hook`: `${base}/x/500` answers 500, `${base}` and `${base}/x` answer 200 */
  base: string;
  /** every request it received, in order */
  received: { url: string; body: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that answers with the status the last path segment names (200
 * when it names none) and records each request it read to the end.
 */
export async function statusReceiver(): Promise<StatusReceiver> {
  const received: StatusReceiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body, headers: req.headers });
      res.writeHead(Number(req.url?.split('/').pop()) || 200, { 'content-type': 'text/plain' }).end('answer');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        // Hearth's webhook client keeps its connections alive
        server.closeAllConnections();
      }),
  };
}
