// Half-open sockets (docs/operations.md#connection-limits, issue 23 defect 2): on every listener a socket that does
// not finish its TLS handshake and its first request or CONNECT within limits.connectTimeoutMs is
// closed (MQTTS kept them forever), and one address holds at most
// limits.unauthenticatedSocketsPerAddress of them while another address still connects; a
// trusted proxy's address is not capped.
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { MIN_WAIT_MS, eventually } from '../../helpers/wait.js';
import { install, makePki, type Pki } from './pki.js';
import { httpsJson } from './clients.js';

let pki: Pki;
let tlsFiles: { certFile: string; keyFile: string; caFile: null };

beforeAll(() => {
  pki = makePki();
  const live = { cert: join(pki.dir, 'live-cert.pem'), key: join(pki.dir, 'live-key.pem') };
  install(pki.serverCert('hearth'), live);
  tlsFiles = { certFile: live.cert, keyFile: live.key, caFile: null };
});
afterAll(() => pki?.remove());

/** a raw TCP socket that sends `bytes` (or nothing) and then stalls; `closed` settles when the server drops it */
function stall(port: number, opts: { bytes?: Buffer; from?: string } = {}): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ port, host: '127.0.0.1', localAddress: opts.from });
    onTestFinished(() => void socket.destroy());
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    // read (and drop) what the server says: HTTP may answer a silent socket 408 before the gate closes
    // it, and a socket whose bytes are never read never reports the close that follows them
    socket.resume();
    socket.once('connect', () => {
      if (opts.bytes) socket.write(opts.bytes);
      resolve({ socket, closed });
    });
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
}

/** the first bytes of a TLS record carrying a ClientHello, cut short: the handshake never completes */
const PARTIAL_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

const mqttsDevice = (t: TestHearth, opts: { from?: string } = {}) =>
  mqtt.connectAsync(`mqtts://127.0.0.1:${t.hearth.mqttsPort}`, {
    username: String(t.device.id),
    password: t.device.key,
    ca: pki.ca,
    reconnectPeriod: 0,
    connectTimeout: MIN_WAIT_MS,
    localAddress: opts.from,
  } as mqtt.IClientOptions);

describe('the connect deadline', () => {
  let t: TestHearth;
  beforeAll(async () => {
    t = await startTestHearth({ limits: { connectTimeoutMs: 500 }, tls: tlsFiles });
  });
  afterAll(async () => t?.close());

  const listeners = () => ({ HTTP: t.hearth.httpPort, HTTPS: t.hearth.httpsPort, MQTT: t.hearth.mqttPort, MQTTS: t.hearth.mqttsPort });

  it('a socket that sends nothing is closed on every listener', async () => {
    const sockets = await Promise.all(Object.entries(listeners()).map(async ([name, port]) => ({ name, ...(await stall(port)) })));
    const open = new Set(sockets.map((s) => s.name));
    // a generous bound, so a failure names the listener that kept its socket
    await Promise.race([Promise.all(sockets.map((s) => s.closed.then(() => open.delete(s.name)))), new Promise((r) => setTimeout(r, MIN_WAIT_MS).unref())]);
    expect([...open]).toEqual([]);
  });

  it('a TLS handshake cut short is closed on MQTTS and HTTPS', async () => {
    const sockets = await Promise.all([t.hearth.mqttsPort, t.hearth.httpsPort].map((port) => stall(port, { bytes: PARTIAL_HELLO })));
    await Promise.all(sockets.map((s) => s.closed));
  });

  it('a device that signed in stays connected past the deadline, and HTTPS answers', async () => {
    const client = await mqttsDevice(t);
    onTestFinished(() => client.endAsync(true));
    // a socket accepted after the device's connection is closed only after the deadline has passed for both
    const later = await stall(t.hearth.mqttsPort);
    await later.closed;
    expect(client.connected).toBe(true);
    expect((await httpsJson(t.hearth.httpsPort, '/healthz', { ca: pki.ca })).status).toBe(200);
  });
});

describe('the per-address cap of sockets not signed in', () => {
  let t: TestHearth;
  const CAP = 3;
  beforeAll(async () => {
    // a long deadline: the stalled sockets stay while the test looks
    t = await startTestHearth({ limits: { connectTimeoutMs: 120_000, unauthenticatedSocketsPerAddress: CAP }, trustedProxies: ['127.0.0.3'], tls: tlsFiles });
  });
  afterAll(async () => t?.close());

  it('past the cap one address is refused on every listener while another address connects; freeing one lets it in again', async () => {
    for (const port of [t.hearth.mqttPort, t.hearth.mqttsPort, t.hearth.httpPort, t.hearth.httpsPort]) {
      const held = [];
      for (let i = 0; i < CAP; i++) held.push(await stall(port, { from: '127.0.0.1' }));
      const excess = await stall(port, { from: '127.0.0.1' });
      await excess.closed;
      // positive control: another address is not affected
      if (port === t.hearth.mqttsPort) {
        const other = await mqttsDevice(t, { from: '127.0.0.2' });
        await other.endAsync(true);
      }
      if (port === t.hearth.mqttPort) {
        // MQTT.js's TCP transport does not pass localAddress on: give it the socket
        const other = new mqtt.MqttClient(() => netConnect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' }), {
          username: String(t.device.id),
          password: t.device.key,
          reconnectPeriod: 0,
        });
        onTestFinished(() => other.endAsync(true));
        await new Promise<void>((resolve, reject) => {
          other.once('connect', () => resolve());
          other.once('error', reject);
        });
      }
      if (port === t.hearth.httpPort) {
        const other = await stall(port, { from: '127.0.0.2', bytes: Buffer.from('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n') });
        const answer = await new Promise<string>((r) => {
          let text = '';
          other.socket.on('data', (c) => (text += c));
          other.socket.on('close', () => r(text));
        });
        expect(answer).toMatch(/^HTTP\/1\.1 200/);
      }
      // one stalled socket goes: its place is free for the same address
      const first = held.shift()!;
      first.socket.destroy();
      await first.closed;
      if (port === t.hearth.mqttsPort) {
        const again = await eventually(() => mqttsDevice(t, { from: '127.0.0.1' }));
        await again.endAsync(true);
      }
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
    }
  });

  it('a trusted proxy address is not capped', async () => {
    const held = [];
    for (let i = 0; i < CAP + 2; i++) held.push(await stall(t.hearth.mqttsPort, { from: '127.0.0.3' }));
    // the proxy's next device still signs in over TLS
    const client = await mqttsDevice(t, { from: '127.0.0.3' });
    await client.endAsync(true);
    for (const h of held) expect(h.socket.destroyed).toBe(false);
  });
});
