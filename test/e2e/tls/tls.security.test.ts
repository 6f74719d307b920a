// What TLS refuses and how its certificate changes (docs/operations.md#configuration): a client that does not trust
// the CA, or meets an expired certificate, is refused on HTTPS and MQTTS; a reload (what SIGHUP
// calls) gives the next handshake the new certificate while connections opened before stay up;
// a reload from bad files keeps the certificate in use; bad files stop start-up with one line.
import { existsSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox } from '../broker/clients.js';
import { install, makePki, type Pki, type ServerCert } from './pki.js';
import { httpsJson, presented } from './clients.js';

let pki: Pki;
let stranger: Pki;
let a: ServerCert;
let b: ServerCert;
let expired: ServerCert;
let t: TestHearth;
/** the files the server reads, replaced as an operator would */
let live: { cert: string; key: string };

beforeAll(async () => {
  pki = makePki();
  stranger = makePki('Untrusted CA');
  a = pki.serverCert('hearth-a');
  b = pki.serverCert('hearth-b');
  expired = pki.serverCert('hearth-old', { expired: true });
  live = { cert: join(pki.dir, 'live-cert.pem'), key: join(pki.dir, 'live-key.pem') };
  install(a, live);
  t = await startTestHearth({ tls: { certFile: live.cert, keyFile: live.key, caFile: null } });
});
afterAll(async () => {
  await t?.close();
  pki?.remove();
  stranger?.remove();
});

const mqttsConnect = (opts: { ca?: string; device: { id: number; key: string } }) =>
  mqtt.connectAsync(`mqtts://127.0.0.1:${t.hearth.mqttsPort}`, {
    username: String(opts.device.id),
    password: opts.device.key,
    ca: opts.ca,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });

/** the TLS error a client gets (code), or 'accepted' */
async function mqttsOutcome(ca: string | undefined): Promise<string> {
  try {
    const c = await mqttsConnect({ ca, device: t.device });
    await c.endAsync(true);
    return 'accepted';
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).message;
  }
}

async function httpsOutcome(ca: string | undefined): Promise<string> {
  try {
    const r = await httpsJson(t.hearth.httpsPort, '/healthz', { ca });
    return r.status === 200 ? 'accepted' : `status ${r.status}`;
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).message;
  }
}

describe('refusals', () => {
  it('a client that does not trust the CA is refused on HTTPS and MQTTS; with the CA it is accepted', async () => {
    expect(await httpsOutcome(pki.ca)).toBe('accepted');
    expect(await mqttsOutcome(pki.ca)).toBe('accepted');
    // the system's roots only
    expect(await httpsOutcome(undefined)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await mqttsOutcome(undefined)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    // another CA
    expect(await httpsOutcome(stranger.ca)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await mqttsOutcome(stranger.ca)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('an expired certificate is refused by clients that trust its CA', async () => {
    install(expired, live);
    onTestFinished(() => {
      install(a, live);
      t.hearth.reloadTls();
    });
    expect(t.hearth.reloadTls()).toBe(true);
    await expect(presented(t.hearth.httpsPort, pki.ca)).rejects.toMatchObject({ code: 'CERT_HAS_EXPIRED' });
    expect(await httpsOutcome(pki.ca)).toBe('CERT_HAS_EXPIRED');
    expect(await mqttsOutcome(pki.ca)).toBe('CERT_HAS_EXPIRED');
  });
});

describe('reload', () => {
  it('the next handshake presents the new certificate; an MQTTS and a WSS connection opened before stay up', async () => {
    install(a, live);
    expect(t.hearth.reloadTls()).toBe(true);
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(a.fingerprint256);
    expect(await presented(t.hearth.mqttsPort, pki.ca)).toBe(a.fingerprint256);
    const d = await t.seedDevice();
    const before = await mqttsConnect({ ca: pki.ca, device: d });
    onTestFinished(() => before.endAsync(true).catch(() => undefined));
    const box = inbox(before);
    await before.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    const ws = new WebSocket(`wss://127.0.0.1:${t.hearth.httpsPort}/devices/${d.id}/command`, { ca: pki.ca, headers: { authorization: `ModeCloud ${d.key}` } });
    onTestFinished(() => ws.terminate());
    const frames: string[] = [];
    ws.on('message', (m) => frames.push(m.toString()));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    install(b, live);
    expect(t.hearth.reloadTls()).toBe(true);
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(b.fingerprint256);
    expect(await presented(t.hearth.mqttsPort, pki.ca)).toBe(b.fingerprint256);

    // both connections of before the reload still carry commands
    expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'after-reload' } })).status).toBe(204);
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'after-reload', parameters: {} });
    await eventually(() => frames.length === 1, 5000, 'the WSS frame');
    expect(JSON.parse(frames[0])).toEqual({ action: 'after-reload', parameters: {} });
    expect(before.connected).toBe(true);
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });

  it('a reload from bad files fails and keeps the certificate in use', async () => {
    install(b, live);
    expect(t.hearth.reloadTls()).toBe(true);
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(b.fingerprint256);
    // a key that is not PEM
    writeFileSync(live.key, 'not a key\n');
    expect(t.hearth.reloadTls()).toBe(false);
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(b.fingerprint256);
    // the key of another certificate
    copyFileSync(a.key, live.key);
    expect(t.hearth.reloadTls()).toBe(false);
    // a file that went away
    rmSync(live.cert);
    expect(t.hearth.reloadTls()).toBe(false);
    expect(await presented(t.hearth.httpsPort, pki.ca)).toBe(b.fingerprint256);
    expect(await presented(t.hearth.mqttsPort, pki.ca)).toBe(b.fingerprint256);
    install(b, live);
  });
});

describe('bad files at start', () => {
  const cases: [string, () => { certFile: string; keyFile: string; caFile: string | null }, string][] = [
    ['a certificate file that does not exist', () => ({ certFile: join(pki.dir, 'missing.pem'), keyFile: a.key, caFile: null }), 'HEARTH_TLS_CERT_FILE'],
    ['a key file that does not exist', () => ({ certFile: a.cert, keyFile: join(pki.dir, 'missing.key'), caFile: null }), 'HEARTH_TLS_KEY_FILE'],
    ['a CA file that does not exist', () => ({ certFile: a.cert, keyFile: a.key, caFile: join(pki.dir, 'missing-ca.pem') }), 'HEARTH_TLS_CA_FILE'],
    ['a certificate file that is a directory', () => ({ certFile: pki.dir, keyFile: a.key, caFile: null }), 'HEARTH_TLS_CERT_FILE'],
    ['a certificate file that is not PEM', () => ({ certFile: a.key, keyFile: a.key, caFile: null }), 'HEARTH_TLS_CERT_FILE'],
    ['a key that belongs to another certificate', () => ({ certFile: a.cert, keyFile: b.key, caFile: null }), 'HEARTH_TLS_KEY_FILE'],
    ['a CA file with no certificate', () => ({ certFile: a.cert, keyFile: a.key, caFile: a.key }), 'HEARTH_TLS_CA_FILE'],
  ];
  it.each(cases)('%s stops start-up with one line naming the variable, before anything is written', async (_what, files, variable) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-tls-bad-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const err = await startTestHearth({ tls: files() }, { dataDir: dir }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.name).toBe('ConfigError');
    expect(err!.message).toMatch(new RegExp(`^${variable}: `));
    expect(err!.message).not.toContain('\n');
    expect(existsSync(join(dir, 'admin.key'))).toBe(false);
    expect(existsSync(join(dir, 'hearth.db'))).toBe(false);
  });

  it('a CA file adds roots and the server starts with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-tls-ca-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const withCa = await startTestHearth({ tls: { certFile: a.cert, keyFile: a.key, caFile: stranger.caFile } }, { dataDir: dir });
    onTestFinished(() => withCa.close());
    expect(await presented(withCa.hearth.httpsPort, pki.ca)).toBe(a.fingerprint256);
  });
});
