// Start-up order of the real process (issue: a first start on a machine where the MQTT port was
// taken created project 1 and printed its admin key, failed, then still logged "HTTP API on ...").
// Every listener is bound before anything is written; a fatal error is one line and the last;
// a misspelled HEARTH_* variable is reported with the name it was probably meant to be.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { removeDataDir, runHearthToExit, startHearthProcess } from '../helpers/process.js';
import { freePort } from '../helpers/redis-server.js';

/** a port somebody else holds for the test's duration */
async function takenPort(): Promise<number> {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => holder.close(() => r())));
  return (holder.address() as { port: number }).port;
}

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-startup-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('start-up order', () => {
  it.each(['HEARTH_MQTT_PORT', 'HEARTH_HTTP_PORT'])(
    'a taken %s: exit 1, one line naming it, nothing logged after it, no project or admin key created',
    { timeout: 120_000 },
    async (variable) => {
      const dataDir = tempDataDir();
      const busy = await takenPort();
      const env: Record<string, string> = { HEARTH_DATA_DIR: dataDir, HEARTH_HTTP_PORT: String(await freePort()), HEARTH_MQTT_PORT: String(await freePort()) };
      env[variable] = String(busy);
      const r = await runHearthToExit(env);
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${variable}: port ${busy} .*already in use`));
      // nothing was started, so nothing announces itself (before or after the fatal line)
      expect(r.stdout).not.toMatch(/HTTP API on|MQTT on|admin key|created project/);
      expect(existsSync(join(dataDir, 'admin.key'))).toBe(false);
      expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
    },
  );

  it('a taken HEARTH_HTTPS_PORT (with TLS files) stops start-up the same way', { timeout: 120_000 }, async () => {
    const { makePki } = await import('./tls/pki.js');
    const pki = makePki();
    onTestFinished(() => pki.remove());
    const cert = pki.serverCert('hearth');
    const dataDir = tempDataDir();
    const busy = await takenPort();
    const r = await runHearthToExit({
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HTTP_PORT: String(await freePort()),
      HEARTH_MQTT_PORT: String(await freePort()),
      HEARTH_MQTTS_PORT: String(await freePort()),
      HEARTH_HTTPS_PORT: String(busy),
      HEARTH_TLS_CERT_FILE: cert.cert,
      HEARTH_TLS_KEY_FILE: cert.key,
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^HEARTH_HTTPS_PORT: /);
    expect(r.stdout).not.toMatch(/HTTP API on|admin key/);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a misspelled variable is reported with the setting it is closest to, and start-up goes on', { timeout: 120_000 }, async () => {
    const p = await startHearthProcess({
      name: 'typo',
      timeoutMs: 80_000,
      env: { HEARTH_HTTPPORT: '9999', HEARTH_TEST_WHATEVER: 'not a setting, not reported' },
    });
    onTestFinished(async () => {
      await p.kill();
      removeDataDir(p);
    });
    const warning = p
      .output()
      .split('\n')
      .find((l) => l.includes('HEARTH_HTTPPORT'));
    expect(warning).toBeDefined();
    expect(warning).toContain('did you mean HEARTH_HTTP_PORT?');
    // a warning (pino JSON level 40 when piped)
    expect(warning).toMatch(/"level":40|WARN/);
    expect(p.output()).not.toContain('HEARTH_TEST_WHATEVER');
    // the server runs on the port of the real setting
    expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
  });
});
