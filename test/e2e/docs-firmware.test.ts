// The walk-through of docs/firmware.md, run verbatim: every shell block of the page, in order, in
// one bash, against a fresh Hearth process on free ports (given through HEARTH_HTTP_PORT /
// HEARTH_MQTT_PORT, as the README's test does), in a directory holding its `data/`. The device
// side is the Mosquitto clients and curl; the test checks that each block ran to its end, that
// what the page says it prints is printed, and, through the API, that the rollout finished with
// its device installed and the file downloaded byte for byte.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearthProcess, type HearthProcess } from '../helpers/process.js';
import { docBlocks, runDocScript } from '../helpers/doc-blocks.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = join(ROOT, 'docs/firmware.md');

describe('docs/firmware.md walk-through', () => {
  let server: HearthProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-docs-firmware-'));
    mkdirSync(join(dir, 'data'));
    server = await startHearthProcess({ dataDir: join(dir, 'data'), timeoutMs: 120_000 });
  }, 180_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs verbatim: a bundle and its file, a rollout, the device over MQTT and HTTP, the rollout completed', async () => {
    const blocks = docBlocks(readFileSync(PAGE, 'utf8'));
    // positive control: the walk-through is there, and every block of the page is run
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.notRun)).toEqual([]);
    const script = blocks.map((b) => `${b.text}\necho "firmware block at line ${b.line} ran"\n`).join('\n');
    const { code, out, err } = await runDocScript(script, dir, {
      HEARTH_HTTP_PORT: String(server.httpPort),
      HEARTH_MQTT_PORT: String(server.mqttPort),
    });
    const why = `exit ${code}\nstdout:\n${out}\nstderr:\n${err}\nserver:\n${server.output().slice(-2000)}`;
    expect(code, why).toBe(0);
    expect(
      [...out.matchAll(/^firmware block at line (\d+) ran$/gm)].map((m) => Number(m[1])),
      why,
    ).toEqual(blocks.map((b) => b.line));
    expect(out, why).toMatch(/^\{"id":"lamp-fw-2","deviceClass":"default"\}$/m);
    const upload = JSON.parse(/^(\{"componentName":"main".*)$/m.exec(out)![1]);
    expect(upload, why).toEqual({ componentName: 'main', size: 300000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), url: expect.any(String) });
    const rolloutId = /^rollout (\S+)$/m.exec(out)?.[1];
    expect(out, why).toContain(`{"action":"firmware-update","rolloutId":"${rolloutId}","bundleId":"lamp-fw-2"}`);
    expect(out, why).toMatch(/^download\.bin: OK$/m);
    expect(out, why).toMatch(/^\{"deviceId":\d+,"state":"downloading"\}$/m);
    expect(out, why).toMatch(/^recorded: 204$/m);
    expect(out, why).toContain('{"state":"completed","counts":{"targeted":1,"pending":0,"notified":0,"downloading":0,"installed":1,"failed":0}}');

    // what the server holds: the device installed, and the file it downloaded is the one uploaded
    const auth = { authorization: `ModeCloud ${readFileSync(join(dir, 'data', 'admin.key'), 'utf8').trim()}` };
    const rollout = await (await fetch(`${server.url}/projects/1/rollouts/${rolloutId}`, { headers: auth })).json();
    expect(rollout).toMatchObject({ state: 'completed', bundleId: 'lamp-fw-2', counts: { targeted: 1, installed: 1 } });
    expect(readFileSync(join(dir, 'download.bin')).equals(readFileSync(join(dir, 'lamp-fw-2.bin')))).toBe(true);
  }, 180_000);
});
