// The signature check of docs/webhooks.md#verifying-signatures, run as written (its URL constant
// and port pointed at this test's receiver) against real deliveries from a real server: a signed
// event is accepted and printed, a forged one is refused with 401.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { freePort } from '../helpers/redis-server.js';

const ROOT = resolve(import.meta.dirname, '../..');

function verifyExample(url: string, port: number): string {
  const page = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
  const m = /## Verifying signatures[\s\S]*?```js\n([\s\S]*?)```/.exec(page);
  if (!m) throw new Error('docs/webhooks.md has no verification example');
  const code = m[1].replace(/const URL = '[^']*'/, `const URL = '${url}'`).replace(/\.listen\(\d+\)/, `.listen(${port})`);
  if (!code.includes(url) || !code.includes(`.listen(${port})`))
    throw new Error('the example no longer has a URL constant and a listen(port) to point at the test');
  return code;
}

describe('docs/webhooks.md signature verification example', () => {
  let h: TestHearth;
  let dir: string;
  beforeAll(async () => {
    h = await startTestHearth({ webhooks: { allowPrivateTargets: true } });
    dir = mkdtempSync(join(tmpdir(), 'hearth-docs-verify-'));
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a real delivery and refuses a forged one', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/hearth`;
    const homeId = await h.seedHome();
    const device = await h.seedDevice({ homeId });
    const created = await h.http('POST', '/projects/1/smartModules', {
      token: h.adminKey,
      body: { id: 'docs-verify', eventWebhook: { url, subscriptions: 'button-pressed' } },
    });
    expect(created.status).toBe(201);
    const key = created.body.eventWebhook.key as string;

    const file = join(dir, 'receiver.mjs');
    writeFileSync(file, verifyExample(url, port));
    const child = spawn(process.execPath, [file], { cwd: dir, env: { ...process.env, WEBHOOK_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = once(child, 'exit');
    try {
      // the receiver is listening once a request reaches it (a forged one: refused)
      let forged: Response | undefined;
      while (!forged) {
        if (child.exitCode !== null) throw new Error(`the receiver exited: ${err}`);
        forged = await fetch(url, { method: 'POST', body: '{"eventType":"button-pressed"}', headers: { 'x-service-signature': '00'.repeat(32) } }).catch(
          () => undefined,
        );
        if (!forged) await new Promise((r) => setTimeout(r, 100));
      }
      expect(forged.status).toBe(401);

      const sent = await h.http('PUT', `/devices/${device.id}/event`, { token: device.key, body: { eventType: 'button-pressed', eventData: { button: 1 } } });
      expect(sent.status).toBe(204);
      while (!out.includes('button-pressed')) {
        if (child.exitCode !== null) throw new Error(`the receiver exited: ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toMatch(/eventType: 'button-pressed'/);
      expect(out).toMatch(/homeId: \d+/);
    } finally {
      child.kill();
      await exited;
    }
  }, 120_000);
});
