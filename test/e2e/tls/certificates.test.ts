// Device certificates (docs/tls.md#client-certificates): certificates made with `openssl` here, registered
// per device (self-signed) or issued by the CA in HEARTH_TLS_CA_FILE with CN device:<id>; devices
// sign in with them over MQTTS (MQTT.js, mosquitto_pub --cert/--key) and MQTT over WSS (ws);
// unknown, expired, revoked and another device's certificates get CONNACK 5; revoking closes the
// live connection; a class with certificateRequired refuses a key alone; bad PEMs are 400.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { WebSocket, createWebSocketStream } from 'ws';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { eventually, MIN_WAIT_MS } from '../../helpers/wait.js';
import { install, makePki, type Pki } from './pki.js';

interface ClientCert {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** lowercase hex sha256, as the API shows it */
  fingerprint: string;
}

let pki: Pki;
let t: TestHearth;

/** a command's exit code and error output */
const run = (cmd: string, args: string[]) =>
  new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(cmd, args, { timeout: MIN_WAIT_MS }, (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stderr }));
  });
const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
let n = 0;

function finish(name: string): ClientCert {
  const certFile = join(pki.dir, `${name}.crt`);
  const keyFile = join(pki.dir, `${name}.key`);
  const fp = openssl(['x509', '-in', certFile, '-noout', '-fingerprint', '-sha256']).split('=')[1].trim();
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), fingerprint: fp.replace(/:/g, '').toLowerCase() };
}

/** a self-signed client certificate, as a device maker would make one */
function selfSigned(cn: string): ClientCert {
  const name = `self-${++n}`;
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
  return finish(name);
}

/** a client certificate issued by the test CA (HEARTH_TLS_CA_FILE); `expired`: valid only in 2020 */
function caIssued(cn: string, opts: { expired?: boolean } = {}): ClientCert {
  const name = `issued-${++n}`;
  openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  ]);
  if (opts.expired) {
    const cnf = join(pki.dir, `${name}.cnf`);
    writeFileSync(join(pki.dir, `${name}-index.txt`), '');
    writeFileSync(join(pki.dir, `${name}-serial`), '01\n');
    writeFileSync(
      cnf,
      `[ca]\ndefault_ca=c\n[c]\ndatabase=${name}-index.txt\nserial=${name}-serial\nnew_certs_dir=.\ndefault_md=sha256\npolicy=p\nunique_subject=no\n[p]\ncommonName=supplied\n`,
    );
    openssl([
      'ca',
      '-batch',
      '-notext',
      '-rand_serial',
      '-config',
      cnf,
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.crt`,
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200102000000Z',
    ]);
  } else {
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', `${name}.crt`]);
  }
  return finish(name);
}

beforeAll(async () => {
  pki = makePki();
  const live = { cert: join(pki.dir, 'live-cert.pem'), key: join(pki.dir, 'live-key.pem') };
  install(pki.serverCert('hearth'), live);
  t = await startTestHearth({ tls: { certFile: live.cert, keyFile: live.key, caFile: pki.caFile, clientCertificates: 'optional' } });
});
afterAll(async () => {
  await t?.close();
  pki?.remove();
});

const register = (deviceId: number, pem: string) => t.http('POST', `/devices/${deviceId}/certificates`, { token: t.adminKey, body: { pem } });

/** MQTTS with a client certificate (and whatever credentials are given) */
function mqtts(c: ClientCert | undefined, opts: IClientOptions = {}): MqttClient {
  const client = mqtt.connect(`mqtts://127.0.0.1:${t.hearth.mqttsPort}`, {
    ca: pki.ca,
    cert: c?.cert,
    key: c?.key,
    reconnectPeriod: 0,
    connectTimeout: MIN_WAIT_MS,
    ...opts,
  });
  onTestFinished(() => client.endAsync(true).catch(() => undefined));
  return client;
}

/** 'connected', or the CONNACK return code of the refusal */
function outcome(client: MqttClient): Promise<'connected' | number> {
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve('connected'));
    client.once('error', (err: Error & { code?: number }) => (typeof err.code === 'number' ? resolve(err.code) : reject(err)));
  });
}

describe('registering certificates', () => {
  it('registers a self-signed certificate (201, sha256 fingerprint), lists it, refuses it twice and on another device', async () => {
    const d = await t.seedDevice();
    const other = await t.seedDevice();
    const c = selfSigned('lamp-1');
    const r = await register(d.id, c.cert);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ fingerprint: c.fingerprint, deviceId: d.id, subject: 'CN=lamp-1' });
    expect(Date.parse(r.body.notAfter)).toBeGreaterThan(Date.now());
    const list = await t.http('GET', `/devices/${d.id}/certificates`, { token: t.adminKey });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([r.body]);
    // 403 ALREADY_EXISTS (docs/api.md#errors: MODE's statuses)
    expect(await register(d.id, c.cert)).toMatchObject({ status: 403, body: { reason: 'ALREADY_EXISTS' } });
    expect(await register(other.id, c.cert)).toMatchObject({ status: 403, body: { reason: 'ALREADY_EXISTS', data: { onAnotherDevice: true } } });
  });

  it('refuses garbage, a private key, a CSR, two certificates and an expired certificate with a clear message', async () => {
    const d = await t.seedDevice();
    const c = selfSigned('lamp-2');
    const csr = readFileSync(join(pki.dir, 'hearth.csr'), 'utf8');
    const cases: [string, RegExp][] = [
      ['hello', /no PEM certificate/],
      [c.key, /private key/],
      [csr, /certificate request/],
      [c.cert + c.cert, /more than one certificate/],
      ['-----BEGIN CERTIFICATE-----\nnotbase64\n-----END CERTIFICATE-----\n', /not a readable certificate/],
      [caIssued('device:1', { expired: true }).cert, /expired on 2020-01-02/],
    ];
    for (const [pem, message] of cases) {
      const r = await register(d.id, pem);
      expect(r.status, pem.slice(0, 40)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(JSON.stringify(r.body.data), pem.slice(0, 40)).toMatch(message);
    }
    expect((await t.http('POST', `/devices/${d.id}/certificates`, { token: t.adminKey, body: {} })).body.reason).toMatch(/^(MISSING|INVALID)_PARAMETERS$/);
    const long = await t.http('POST', `/devices/${d.id}/certificates`, { token: t.adminKey, body: { pem: 'x'.repeat(20_000) } });
    expect(long).toMatchObject({ status: 403, body: { reason: 'INVALID_PARAMETERS' } });
    // the device itself may not register certificates, and an unknown device is 404
    expect((await t.http('POST', `/devices/${d.id}/certificates`, { token: d.key, body: { pem: c.cert } })).status).toBe(403);
    expect((await register(999_999, c.cert)).status).toBe(404);
    expect((await t.http('DELETE', `/devices/${d.id}/certificates/${'0'.repeat(64)}`, { token: t.adminKey })).status).toBe(404);
    expect((await t.http('GET', `/devices/${d.id}/certificates`, { token: t.adminKey })).body).toEqual([]);
  });
});

describe('signing in with a certificate', () => {
  let d: SeededDevice;
  let c: ClientCert;
  beforeAll(async () => {
    d = await t.seedDevice();
    c = selfSigned('lamp-3');
    expect((await register(d.id, c.cert)).status).toBe(201);
  });

  it('MQTTS with MQTT.js: empty user name or the device id, no password; another device id is CONNACK 5', async () => {
    const a = mqtts(c);
    expect(await outcome(a)).toBe('connected');
    const b = mqtts(c, { username: String(d.id) });
    expect(await outcome(b)).toBe('connected');
    // the connection is the device's: it receives a command sent to it
    await b.subscribeAsync(`/devices/${d.id}/command`);
    const got = new Promise<string>((r) => b.once('message', (_t, p) => r(p.toString())));
    expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'blink', parameters: {} } })).status).toBe(204);
    expect(JSON.parse(await got)).toMatchObject({ action: 'blink' });
    const other = await t.seedDevice();
    expect(await outcome(mqtts(c, { username: String(other.id) }))).toBe(5);
  });

  it('mosquitto_pub --cert/--key publishes (QoS 1: acknowledged after CONNACK 0)', async () => {
    const fresh = await t.seedDevice();
    const own = selfSigned('lamp-5');
    expect((await register(fresh.id, own.cert)).status).toBe(201);
    // asynchronously: the server runs in this process
    const args = [
      '-h',
      '127.0.0.1',
      '-p',
      String(t.hearth.mqttsPort),
      '--cafile',
      pki.caFile,
      '--cert',
      own.certFile,
      '--key',
      own.keyFile,
      '-u',
      String(fresh.id),
    ];
    const r = await run('mosquitto_pub', [...args, '-q', '1', '-t', `/devices/${fresh.id}/event`, '-m', '{"eventType":"booted","eventData":{}}']);
    expect(r).toEqual({ code: 0, stderr: '' });
    expect((await t.deviceRow(fresh.id))?.lastConnectTime).not.toBeNull();
    // an unknown certificate: refused
    const stranger = selfSigned('lamp-6');
    const refused = await run('mosquitto_pub', [
      ...args.slice(0, 6),
      '--cert',
      stranger.certFile,
      '--key',
      stranger.keyFile,
      '-q',
      '1',
      '-t',
      `/devices/${fresh.id}/event`,
      '-m',
      '{}',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not authori[sz]ed/i);
  });

  it('MQTT over WSS (ws with the certificate): signed in; an unknown certificate is CONNACK 5', async () => {
    const over = (cert: ClientCert) => {
      const client = new mqtt.MqttClient(
        () => createWebSocketStream(new WebSocket(`wss://127.0.0.1:${t.hearth.httpsPort}/mqtt`, 'mqtt', { ca: pki.ca, cert: cert.cert, key: cert.key })),
        { reconnectPeriod: 0, username: '' },
      );
      onTestFinished(() => client.endAsync(true).catch(() => undefined));
      return client;
    };
    expect(await outcome(over(c))).toBe('connected');
    expect(await outcome(over(selfSigned('stranger')))).toBe(5);
  });

  it('unknown, expired and wrong-CN certificates are CONNACK 5; a key still works beside them', async () => {
    expect(await outcome(mqtts(selfSigned('nobody')))).toBe(5);
    expect(await outcome(mqtts(caIssued(`device:${d.id}`, { expired: true })))).toBe(5);
    expect(await outcome(mqtts(caIssued(`lamp-${d.id}`)))).toBe(5);
    expect(await outcome(mqtts(undefined, { username: String(d.id), password: d.key }))).toBe('connected');
  });

  it('a certificate issued by HEARTH_TLS_CA_FILE with CN device:<id> signs in without registration', async () => {
    const issued = caIssued(`device:${d.id}`);
    expect(await outcome(mqtts(issued))).toBe('connected');
    expect(await outcome(mqtts(issued, { username: String(d.id) }))).toBe('connected');
    const other = await t.seedDevice();
    expect(await outcome(mqtts(issued, { username: String(other.id) }))).toBe(5);
  });
});

describe('revocation and class requirement', () => {
  it('revoking closes the live connection signed in with it (not the key one), and it is refused after', async () => {
    const d = await t.seedDevice();
    const c = selfSigned('lamp-4');
    expect((await register(d.id, c.cert)).status).toBe(201);
    const byCert = mqtts(c);
    expect(await outcome(byCert)).toBe('connected');
    const byKey = mqtts(undefined, { username: String(d.id), password: d.key });
    expect(await outcome(byKey)).toBe('connected');
    const closed = new Promise<void>((r) => byCert.once('close', () => r()));
    const colonFingerprint = c.fingerprint.toUpperCase().match(/../g)!.join(':');
    expect((await t.http('DELETE', `/devices/${d.id}/certificates/${colonFingerprint}`, { token: t.adminKey })).status).toBe(204);
    await closed;
    expect(byKey.connected).toBe(true);
    expect(await outcome(mqtts(c))).toBe(5);
    expect((await t.http('GET', `/devices/${d.id}/certificates`, { token: t.adminKey })).body).toEqual([]);
    const logs = await t.http('GET', `/logs?projectId=${d.projectId}`, { token: t.adminKey });
    expect(JSON.stringify(logs.body)).toContain(`certificate ${c.fingerprint} of device ${d.id} revoked`);
  });

  it('a class with certificateRequired refuses a key alone (CONNACK 5) and takes a certificate', async () => {
    const created = await t.http('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'secure-lamp', certificateRequired: true } });
    expect(created.status).toBe(201);
    expect(created.body.certificateRequired).toBe(true);
    const d = await t.seedDevice({ deviceClass: 'secure-lamp' });
    const c = selfSigned('secure-1');
    expect((await register(d.id, c.cert)).status).toBe(201);
    expect(await outcome(mqtts(c))).toBe('connected');
    expect(await outcome(mqtts(undefined, { username: String(d.id), password: d.key }))).toBe(5);
    // plain MQTT too
    const plain = mqtt.connect(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(d.id), password: d.key, reconnectPeriod: 0 });
    onTestFinished(() => plain.endAsync(true).catch(() => undefined));
    expect(await outcome(plain)).toBe(5);
    const patched = await t.http('PATCH', '/projects/1/deviceClasses/secure-lamp', { token: t.adminKey, body: { certificateRequired: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.certificateRequired).toBeUndefined();
    expect(await outcome(mqtts(undefined, { username: String(d.id), password: d.key }))).toBe('connected');
    expect((await t.http('PATCH', '/projects/1/deviceClasses/secure-lamp', { token: t.adminKey, body: { certificateRequired: 'yes' } })).status).toBe(403);
    expect((await t.http('PATCH', '/projects/1/deviceClasses/nope', { token: t.adminKey, body: { certificateRequired: true } })).status).toBe(404);
  });
});

describe('the command and KV WebSockets over WSS', () => {
  /** a WebSocket to a device channel with a client certificate (and the headers given): opened, or the status it was refused with */
  function channel(path: string, c: ClientCert | undefined, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; first: Promise<string> } | number> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${t.hearth.httpsPort}${path}`, { ca: pki.ca, cert: c?.cert, key: c?.key, headers });
      onTestFinished(() => ws.terminate());
      const first = new Promise<string>((r) => ws.once('message', (data) => r(data.toString())));
      ws.once('open', () => resolve({ ws, first }));
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      ws.once('error', reject);
    });
  }
  const opened = async (p: ReturnType<typeof channel>) => {
    const r = await p;
    if (typeof r === 'number') throw new Error(`refused with ${r}`);
    return r;
  };

  it('a registered certificate opens the device’s command socket (commands arrive) and its KV socket (reload first)', async () => {
    const d = await t.seedDevice();
    const c = selfSigned('lamp-ws-1');
    expect((await register(d.id, c.cert)).status).toBe(201);
    const cmd = await opened(channel(`/devices/${d.id}/command`, c));
    await eventually(async () => (await t.http('GET', `/devices/${d.id}`, { token: t.adminKey })).body.isConnected === true);
    const sent = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'blink', parameters: { times: 2 } } });
    expect(sent.status).toBe(204);
    expect(JSON.parse(await cmd.first)).toMatchObject({ action: 'blink', parameters: { times: 2 } });
    const kv = await opened(channel(`/devices/${d.id}/kv`, c));
    expect(JSON.parse(await kv.first)).toMatchObject({ action: 'reload' });
  });

  it('an unknown certificate, an expired one and another device’s are 403; a device key still opens them', async () => {
    const d = await t.seedDevice();
    const other = await t.seedDevice();
    const c = selfSigned('lamp-ws-2');
    expect((await register(other.id, c.cert)).status).toBe(201);
    expect(await channel(`/devices/${d.id}/command`, selfSigned('nobody-ws'))).toBe(403);
    expect(await channel(`/devices/${d.id}/kv`, caIssued(`device:${d.id}`, { expired: true }))).toBe(403);
    expect(await channel(`/devices/${d.id}/command`, c)).toBe(403);
    expect(await channel(`/devices/${d.id}/kv`, c)).toBe(403);
    const byKey = await opened(channel(`/devices/${d.id}/kv`, undefined, { authorization: `ModeCloud ${d.key}` }));
    expect(JSON.parse(await byKey.first)).toMatchObject({ action: 'reload' });
  });

  it('revoking closes the command and KV sockets signed in with the certificate, not the one opened with the key', async () => {
    const d = await t.seedDevice();
    const c = selfSigned('lamp-ws-3');
    expect((await register(d.id, c.cert)).status).toBe(201);
    const cmd = await opened(channel(`/devices/${d.id}/command`, c));
    const kv = await opened(channel(`/devices/${d.id}/kv`, c));
    await kv.first;
    const byKey = await opened(channel(`/devices/${d.id}/kv`, undefined, { authorization: `ModeCloud ${d.key}` }));
    await byKey.first;
    const closed = (ws: WebSocket) => new Promise<void>((r) => ws.once('close', () => r()));
    const both = Promise.all([closed(cmd.ws), closed(kv.ws)]);
    expect((await t.http('DELETE', `/devices/${d.id}/certificates/${c.fingerprint}`, { token: t.adminKey })).status).toBe(204);
    await both;
    expect(byKey.ws.readyState).toBe(WebSocket.OPEN);
    expect(await channel(`/devices/${d.id}/command`, c)).toBe(403);
  });

  it('a class with certificateRequired refuses the key on the command socket (403) and takes the certificate', async () => {
    const created = await t.http('POST', '/projects/1/deviceClasses', { token: t.adminKey, body: { id: 'secure-ws', certificateRequired: true } });
    expect(created.status).toBe(201);
    const d = await t.seedDevice({ deviceClass: 'secure-ws' });
    const c = selfSigned('secure-ws-1');
    expect((await register(d.id, c.cert)).status).toBe(201);
    expect(await channel(`/devices/${d.id}/command`, undefined, { authorization: `ModeCloud ${d.key}` })).toBe(403);
    await opened(channel(`/devices/${d.id}/command`, c));
  });
});

describe('revoking a CA-issued certificate by fingerprint', () => {
  it('closes its MQTTS connection and its command socket, refuses it after (CONNACK 5, 403), lists it, and leaves another certificate of the device alone', async () => {
    const d = await t.seedDevice();
    const issued = caIssued(`device:${d.id}`);
    const spare = caIssued(`device:${d.id}`);
    const byCert = mqtts(issued);
    expect(await outcome(byCert)).toBe('connected');
    const bySpare = mqtts(spare);
    expect(await outcome(bySpare)).toBe('connected');
    const ws = new WebSocket(`wss://127.0.0.1:${t.hearth.httpsPort}/devices/${d.id}/command`, { ca: pki.ca, cert: issued.cert, key: issued.key });
    onTestFinished(() => ws.terminate());
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const closed = Promise.all([new Promise<void>((r) => byCert.once('close', () => r())), new Promise<void>((r) => ws.once('close', () => r()))]);
    const colon = issued.fingerprint.toUpperCase().match(/../g)!.join(':');
    const revoked = await t.http('POST', `/devices/${d.id}/certificates/revocations`, { token: t.adminKey, body: { fingerprint: colon } });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({ fingerprint: issued.fingerprint, deviceId: d.id });
    await closed;
    expect(bySpare.connected).toBe(true);
    expect(await outcome(mqtts(issued))).toBe(5);
    expect((await t.http('GET', `/devices/${d.id}/certificates/revocations`, { token: t.adminKey })).body).toEqual([revoked.body]);
    // twice, a bad fingerprint, a registered certificate: refused with a reason
    const again = await t.http('POST', `/devices/${d.id}/certificates/revocations`, { token: t.adminKey, body: { fingerprint: issued.fingerprint } });
    expect(again.status).toBe(403);
    expect(again.body.reason).toBe('ALREADY_EXISTS');
    const bad = await t.http('POST', `/devices/${d.id}/certificates/revocations`, { token: t.adminKey, body: { fingerprint: 'abc' } });
    expect(bad.status).toBe(403);
    expect(JSON.stringify(bad.body)).toContain('64 hex digits');
    const own = selfSigned('lamp-rv');
    expect((await register(d.id, own.cert)).status).toBe(201);
    const registered = await t.http('POST', `/devices/${d.id}/certificates/revocations`, { token: t.adminKey, body: { fingerprint: own.fingerprint } });
    expect(registered.status).toBe(403);
    expect(JSON.stringify(registered.body)).toContain('DELETE');
  });
});
