// The README's quickstart, run as written: the fenced blocks between `<!-- quickstart:start -->`
// and `<!-- quickstart:end -->` of README.md itself (so the README cannot drift), in bash, against
// a fresh Hearth process started the way the README's "Start" section starts it, on free ports
// given through HEARTH_HTTP_PORT / HEARTH_MQTT_PORT, in a directory holding its `data/`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearthProcess, type HearthProcess } from '../helpers/process.js';
import { freePort } from '../helpers/redis-server.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** the shell blocks of the README's quickstart, in order */
export function quickstartScript(readme: string): string {
  const m = /<!-- quickstart:start -->([\s\S]*?)<!-- quickstart:end -->/.exec(readme);
  if (!m) throw new Error('README.md has no quickstart markers');
  const blocks = [...m[1].matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((b) => b[1]);
  if (blocks.length === 0) throw new Error('the quickstart holds no sh blocks');
  return blocks.join('\n');
}

describe('README quickstart', () => {
  let server: HearthProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-readme-'));
    mkdirSync(join(dir, 'data'));
    // the one-liners `require("ws")` as they would in the repository directory
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    // a busy machine (Chromium in a neighbouring test) may take a while to start a process
    server = await startHearthProcess({ dataDir: join(dir, 'data'), env: { HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, timeoutMs: 120_000 });
  }, 180_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('extracts only what lies between the markers', () => {
    const script = quickstartScript(
      'intro\n```sh\nnot me\n```\n<!-- quickstart:start -->\n```sh\necho a\n```\ntext\n```sh\necho b\n```\n<!-- quickstart:end -->\n```sh\nnor me\n```',
    );
    expect(script).toBe('echo a\n\necho b\n');
    expect(() => quickstartScript('no markers')).toThrow(/markers/);
  });

  it('runs verbatim: device to cloud, cloud to device, a webhook, the live stream', async () => {
    const script = quickstartScript(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const receiverPort = await freePort();
    const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], {
      cwd: dir,
      env: {
        ...process.env,
        HEARTH_HTTP_PORT: String(server.httpPort),
        HEARTH_MQTT_PORT: String(server.mqttPort),
        RECEIVER_PORT: String(receiverPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // its own process group: whatever it left in the background is ended with it
      detached: true,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const [code] = (await once(child, 'exit')) as [number | null];
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // nothing left in the group
    }
    const why = `exit ${code}\nstdout:\n${out}\nstderr:\n${err}\nserver:\n${server.output().slice(-2000)}`;
    expect(code, why).toBe(0);
    expect(out, why).toMatch(/"type":"project key"/);
    expect(out, why).toMatch(/device \d+ in home \d+/);
    expect(out, why).toMatch(/"url":"http:\/\/127\.0\.0\.1:\d+\/hook"/);
    expect(out, why).toMatch(/\/devices\/\d+\/command \{"action":"light-on","parameters":\{"level":80\}\}/);
    const webhook = /^webhook: (.*)$/m.exec(out)?.[1];
    const stream = /^stream: +(.*)$/m.exec(out)?.[1];
    expect(JSON.parse(webhook!), why).toMatchObject({ eventType: 'button-pressed', eventData: { button: 1 }, homeId: expect.any(Number) });
    expect(JSON.parse(stream!), why).toMatchObject({ eventType: 'button-pressed', eventData: { button: 1 }, originDeviceId: expect.any(Number) });
  }, 180_000);
});
