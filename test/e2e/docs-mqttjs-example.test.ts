// The MQTT.js example of docs/devices.md#with-mqttjs, run as written against a real server: it
// connects as the device, answers a command, follows a key-value change and sends an event.
// Extracted from the page itself, so the page cannot drift from what works.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';

const ROOT = resolve(import.meta.dirname, '../..');

function mqttjsExample(): string {
  const page = readFileSync(join(ROOT, 'docs/devices.md'), 'utf8');
  const m = /### With MQTT\.js[\s\S]*?```js\n([\s\S]*?)```/.exec(page);
  if (!m) throw new Error('docs/devices.md has no MQTT.js example');
  return m[1];
}

describe('docs/devices.md MQTT.js example', () => {
  let h: TestHearth;
  let dir: string;
  beforeAll(async () => {
    h = await startTestHearth();
    dir = mkdtempSync(join(tmpdir(), 'hearth-docs-mqttjs-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs: receives a command, syncs a key-value change, sends an event', async () => {
    const device = await h.seedDevice();
    // the example as written, plus one line that reports its key-value store when asked
    const file = join(dir, 'device.mjs');
    writeFileSync(file, `${mqttjsExample()}\nprocess.stdin.on('data', () => console.log('kv', JSON.stringify([...kv]), 'rev', rev));\n`);
    const child = spawn(process.execPath, [file], {
      cwd: dir,
      env: { ...process.env, DEVICE_ID: String(device.id), DEVICE_KEY: device.key, HEARTH_MQTT_PORT: String(h.mqttPort) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = once(child, 'exit');
    const waitFor = async (what: () => Promise<boolean> | boolean, label: string) => {
      for (;;) {
        if (await what()) return;
        if (child.exitCode !== null) throw new Error(`the example exited (${label}): ${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      // its event arrives once it is connected and subscribed (the event is published after the subscription)
      await waitFor(async () => (await h.http('GET', '/events?projectId=1&eventType=booted', { token: h.adminKey })).body.length > 0, 'event');
      expect((await h.http('PUT', `/devices/${device.id}/kv/brightness`, { token: h.adminKey, body: { value: 80 } })).status).toBe(204);
      expect(
        (await h.http('PUT', `/devices/${device.id}/command`, { token: h.adminKey, body: { action: 'light-on', parameters: { level: 80 } } })).status,
      ).toBe(204);
      await waitFor(() => out.includes('command light-on { level: 80 }'), 'command');
      // ask for its store until the change has arrived
      await waitFor(() => out.includes('kv [["brightness",80]] rev 1') || (child.stdin.write('\n'), false), 'kv');
    } finally {
      child.kill();
      await exited;
    }
  }, 120_000);
});
