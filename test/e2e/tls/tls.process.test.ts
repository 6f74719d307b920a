// TLS in the real process (`node src/main.ts`), as an operator runs it: a real SIGHUP after the
// PEM files were replaced gives the next handshake the new certificate, while an MQTT-over-TLS
// device connected before keeps its connection; a missing file stops start-up with one line.
import { readFileSync, rmSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { startHearthProcess, removeDataDir, runHearthToExit, type HearthProcess } from '../../helpers/process.js';
import { freePort } from '../../helpers/redis-server.js';
import { eventually, inbox } from '../broker/clients.js';
import { install, makePki, type Pki, type ServerCert } from './pki.js';
import { presented } from './clients.js';

let pki: Pki;
let a: ServerCert;
let b: ServerCert;
let live: { cert: string; key: string };
let p: HearthProcess;
let httpsPort: number;
let mqttsPort: number;

beforeAll(async () => {
  pki = makePki();
  a = pki.serverCert('hearth-a');
  b = pki.serverCert('hearth-b');
  live = { cert: join(pki.dir, 'live-cert.pem'), key: join(pki.dir, 'live-key.pem') };
  install(a, live);
  httpsPort = await freePort();
  mqttsPort = await freePort();
  p = await startHearthProcess({
    name: 'tls',
    // a busy machine: tsx compiles the sources at start
    timeoutMs: 80_000,
    env: {
      HEARTH_TLS_CERT_FILE: live.cert,
      HEARTH_TLS_KEY_FILE: live.key,
      HEARTH_HTTPS_PORT: String(httpsPort),
      HEARTH_MQTTS_PORT: String(mqttsPort),
      // the start-up lines (the pid to signal) are logged at info
      HEARTH_LOG_LEVEL: 'info',
    },
  });
}, 120_000);
afterAll(async () => {
  await p?.kill();
  if (p) removeDataDir(p);
  pki?.remove();
});

describe('the process with TLS files', () => {
  it('names in its start-up log the pid to send SIGHUP to: its own (docs/tls.md#reloading-certificates)', async () => {
    expect(p.child.pid).toEqual(expect.any(Number));
    // the process answers before its log line has come through the pipe on a busy machine
    const line = `(kill -HUP ${p.child.pid} reloads ${live.cert})`;
    await eventually(async () => p.output().includes(line), 15_000, 'the start-up line naming the pid');
    expect(p.output()).toContain(line);
  });

  it('reloads the certificate on SIGHUP; a device connected over MQTTS before stays connected', { timeout: 60_000 }, async () => {
    const adminKey = readFileSync(join(p.dataDir, 'admin.key'), 'utf8').trim();
    const created = await fetch(`${p.url}/devices`, {
      method: 'POST',
      headers: { authorization: `ModeCloud ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectId: 1, deviceClass: 'default', name: 'tls device' }),
    });
    expect(created.status).toBe(201);
    const device = (await created.json()) as { id: number; apiKey: string };
    expect(await presented(httpsPort, pki.ca)).toBe(a.fingerprint256);

    const client = await mqtt.connectAsync(`mqtts://127.0.0.1:${mqttsPort}`, {
      username: String(device.id),
      password: device.apiKey,
      ca: pki.ca,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
    });
    onTestFinished(() => client.endAsync(true).catch(() => undefined));
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${device.id}/command`, { qos: 1 });

    install(b, live);
    p.child.kill('SIGHUP');
    await eventually(async () => (await presented(httpsPort, pki.ca)) === b.fingerprint256, 20_000, 'the new certificate on HTTPS');
    expect(await presented(mqttsPort, pki.ca)).toBe(b.fingerprint256);

    // still running, and the connection made with the old certificate still carries commands
    expect(p.child.exitCode).toBeNull();
    const sent = await fetch(`${p.url}/devices/${device.id}/command`, {
      method: 'PUT',
      headers: { authorization: `ModeCloud ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'after-sighup' }),
    });
    expect(sent.status).toBe(204);
    expect(await box.next(`/devices/${device.id}/command`, 10_000)).toEqual({ action: 'after-sighup', parameters: {} });
    expect(client.connected).toBe(true);
  });

  it('a SIGHUP with a broken key file logs the failure and keeps serving the certificate in use', { timeout: 60_000 }, async () => {
    const fingerprint = await presented(httpsPort, pki.ca);
    writeFileSync(live.key, 'broken\n');
    onTestFinished(() => install(b, live));
    p.child.kill('SIGHUP');
    await eventually(() => /TLS reload failed, keeping the certificate in use: HEARTH_TLS_KEY_FILE/.test(p.output()), 20_000, 'the failure logged');
    expect(await presented(httpsPort, pki.ca)).toBe(fingerprint);
    expect(p.child.exitCode).toBeNull();
  });
});

describe('a missing TLS file', () => {
  it('stops start-up with one line naming HEARTH_TLS_CERT_FILE, and writes nothing', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-tls-missing-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const r = await runHearthToExit({
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HTTP_PORT: String(await freePort()),
      HEARTH_MQTT_PORT: String(await freePort()),
      HEARTH_HTTPS_PORT: String(await freePort()),
      HEARTH_MQTTS_PORT: String(await freePort()),
      HEARTH_TLS_CERT_FILE: join(pki.dir, 'nowhere.pem'),
      HEARTH_TLS_KEY_FILE: a.key,
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^HEARTH_TLS_CERT_FILE: cannot read .*nowhere\.pem/);
    expect(r.stdout).not.toMatch(/HTTP API on|admin key/);
    expect(existsSync(join(dataDir, 'admin.key'))).toBe(false);
  });
});
