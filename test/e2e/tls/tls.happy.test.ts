// TLS with real clients (docs/operations.md#configuration): the server started with a certificate from a throwaway CA
// (made with openssl here), reached over HTTPS (node:https), WSS (ws: the command channel and
// MQTT over WebSocket), MQTT over TLS (MQTT.js and mosquitto_sub --cafile); the plain listeners
// stay beside them, and parser errors on the HTTPS port answer the API's error body.
import { execFileSync, spawn } from 'node:child_process';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox } from '../broker/clients.js';
import { makePki, type Pki, type ServerCert } from './pki.js';
import { httpsJson, presented } from './clients.js';

let pki: Pki;
let server: ServerCert;
let t: TestHearth;

beforeAll(async () => {
  pki = makePki();
  server = pki.serverCert('hearth-a');
  t = await startTestHearth({ tls: { certFile: server.cert, keyFile: server.key, caFile: null } });
});
afterAll(async () => {
  await t?.close();
  pki?.remove();
});

describe('HTTPS', () => {
  it('serves the API on the HTTPS port with the configured certificate, beside plain HTTP', async () => {
    expect(t.hearth.httpsPort).toBeGreaterThan(0);
    expect(t.hearth.httpsPort).not.toBe(t.httpPort);
    const r = await httpsJson(t.hearth.httpsPort, `/devices/${t.device.id}/kv`, { ca: pki.ca, token: t.device.key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['x-request-id']).toBeTruthy();
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(server.fingerprint256);
    // plain HTTP still answers
    expect((await t.http('GET', '/healthz')).status).toBe(200);
  });

  it('answers a 20 KB header with 431 and a broken request line with 400, each with {reason, data}', async () => {
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const s = tlsConnect({ host: '127.0.0.1', port: t.hearth.httpsPort, ca: pki.ca, servername: 'localhost' }, () => s.write(text));
        let out = '';
        s.on('data', (d) => (out += d));
        s.on('end', () => resolve(out));
        s.on('close', () => resolve(out));
        s.on('error', reject);
      });
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ reason: 'HEADERS_TOO_LARGE' });
    const broken = await raw('THIS IS NOT HTTP\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4))).toMatchObject({ reason: 'BAD_REQUEST' });
  });
});

describe('WSS', () => {
  it('carries the device command channel: a command sent over HTTPS arrives as a text frame', async () => {
    const d = await t.seedDevice();
    const ws = new WebSocket(`wss://127.0.0.1:${t.hearth.httpsPort}/devices/${d.id}/command`, { ca: pki.ca, headers: { authorization: `ModeCloud ${d.key}` } });
    onTestFinished(() => ws.terminate());
    const frame = new Promise<string>((r) => ws.once('message', (m) => r(m.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    await eventually(async () => (await t.deps.presence!.count(d.id)) === 1);
    const sent = await httpsJson(t.hearth.httpsPort, `/devices/${d.id}/command`, {
      ca: pki.ca,
      method: 'PUT',
      token: t.adminKey,
      body: { action: 'over-tls', parameters: { n: 1 } },
    });
    expect(sent.status).toBe(204);
    expect(JSON.parse(await frame)).toEqual({ action: 'over-tls', parameters: { n: 1 } });
  });

  it('carries MQTT over WebSocket (MQTT.js on wss://)', async () => {
    const d = await t.seedDevice();
    const client = await mqtt.connectAsync(`wss://127.0.0.1:${t.hearth.httpsPort}/mqtt`, {
      username: String(d.id),
      password: d.key,
      ca: pki.ca,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    } as never);
    onTestFinished(() => client.endAsync(true).catch(() => undefined));
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'via-wss' } })).status).toBe(204);
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'via-wss', parameters: {} });
  });
});

describe('MQTT over TLS', () => {
  it('MQTT.js on mqtts:// connects with the device key and receives a command', async () => {
    const d = await t.seedDevice();
    expect(t.hearth.mqttsPort).toBeGreaterThan(0);
    const client = await mqtt.connectAsync(`mqtts://127.0.0.1:${t.hearth.mqttsPort}`, {
      username: String(d.id),
      password: d.key,
      ca: pki.ca,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    onTestFinished(() => client.endAsync(true).catch(() => undefined));
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'via-mqtts' } })).status).toBe(204);
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'via-mqtts', parameters: {} });
    // and a device event published over TLS is in the history once PUBACKed
    await client.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'tlsEvent', eventData: { ok: true } }), { qos: 1 });
    const rows = await t.deps.store.events.list({ projectId: 1, eventType: 'tlsEvent' }, { skip: 0, limit: 10 });
    expect(rows.items.map((r) => r.event)).toEqual([expect.objectContaining({ eventType: 'tlsEvent', originDeviceId: d.id, originDeviceIp: '127.0.0.1' })]);
  });

  const haveMosquitto = (() => {
    try {
      execFileSync('which', ['mosquitto_sub'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!haveMosquitto)('mosquitto_sub --cafile receives a command', async () => {
    const d = await t.seedDevice();
    const sub = spawn('mosquitto_sub', [
      '-h',
      '127.0.0.1',
      '-p',
      String(t.hearth.mqttsPort),
      '--cafile',
      pki.caFile,
      '-u',
      String(d.id),
      '-P',
      d.key,
      '-t',
      `/devices/${d.id}/command`,
      '-q',
      '1',
      '-C',
      '1',
      '-i',
      `tls-sub-${d.id}`,
    ]);
    onTestFinished(() => void sub.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    sub.stdout.on('data', (c) => (stdout += c));
    sub.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((r) => sub.on('close', r));
    await eventually(async () => (await t.deps.presence!.count(d.id)) === 1, 10_000, `mosquitto_sub connected over TLS (${stderr})`);
    // the SUBSCRIBE follows the CONNACK: send until one arrives (the process exits after one message)
    let done = false;
    void exited.then(() => (done = true));
    await eventually(
      async () => {
        if (done) return true;
        await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'to-mosquitto' } });
        return done || stdout.length > 0;
      },
      10_000,
      'mosquitto_sub got a command',
    );
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout.trim().split('\n')[0])).toEqual({ action: 'to-mosquitto', parameters: {} });
  });
});

describe('TLS only (HEARTH_HTTP_ENABLED=false, HEARTH_MQTT_ENABLED=false)', () => {
  it('binds no plain port and serves the API and devices over TLS', async () => {
    const only = await startTestHearth({
      http: { port: 0, enabled: false, publicUrl: null },
      mqtt: { port: 0, enabled: false },
      tls: { certFile: server.cert, keyFile: server.key, caFile: null },
    });
    onTestFinished(() => only.close());
    expect([only.hearth.httpPort, only.hearth.mqttPort]).toEqual([0, 0]);
    const d = await only.seedDevice();
    const r = await httpsJson(only.hearth.httpsPort, `/devices/${d.id}/kv`, { ca: pki.ca, token: d.key });
    expect(r.status).toBe(200);
    const client = await mqtt.connectAsync(`mqtts://127.0.0.1:${only.hearth.mqttsPort}`, {
      username: String(d.id),
      password: d.key,
      ca: pki.ca,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    expect(client.connected).toBe(true);
    await client.endAsync(true);
  });
});
