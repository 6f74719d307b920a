// docs/tls.md's walk-throughs, run as written: its shell blocks in bash, in a fresh directory, against a Hearth
// process started as the first block starts it (the same variables; the sources through tsx rather
// than dist/). The only things changed are the ports (the docs' 8443 and 8883 become free ones)
// and the two waits' bounds (30 s in the docs, for an idle machine; a loaded one can take longer
// to subscribe and see the device connected, and the bounds only end a hang).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startHearthProcess, type HearthProcess } from '../../helpers/process.js';
import { freePort } from '../../helpers/redis-server.js';

const ROOT = resolve(import.meta.dirname, '../../..');
let server: HearthProcess | undefined;
let dir: string | undefined;
afterAll(async () => {
  await server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const bash = (script: string, cwd: string) =>
  new Promise<{ code: number; out: string }>((done) => {
    execFile('bash', ['-c', `set -eo pipefail\n${script}`], { cwd, timeout: 300_000 }, (err, stdout, stderr) =>
      done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });

it('the self-signed and client-certificate walk-throughs of docs/tls.md run verbatim', async () => {
  const doc = readFileSync(join(ROOT, 'docs/tls.md'), 'utf8');
  const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]);
  expect(blocks.length).toBe(4);
  // the first block makes the certificate, then starts the server: the test starts it the same way
  const start = 'HEARTH_TLS_CERT_FILE=cert.pem HEARTH_TLS_KEY_FILE=key.pem node dist/src/main.js\n';
  expect(blocks[0].endsWith(start)).toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'hearth-tls-doc-'));
  mkdirSync(join(dir, 'data'));
  const made = await bash(blocks[0].slice(0, -start.length), dir);
  expect(made.code, made.out).toBe(0);
  const [https, mqtts] = [await freePort(), await freePort()];
  server = await startHearthProcess({
    dataDir: join(dir, 'data'),
    timeoutMs: 180_000,
    env: {
      HEARTH_TLS_CERT_FILE: join(dir, 'cert.pem'),
      HEARTH_TLS_KEY_FILE: join(dir, 'key.pem'),
      HEARTH_TLS_CLIENT_CERTIFICATES: 'optional',
      HEARTH_HTTPS_PORT: String(https),
      HEARTH_MQTTS_PORT: String(mqtts),
    },
  });
  const ports = (s: string) =>
    s.replaceAll(':8443', `:${https}`).replaceAll('-p 8883', `-p ${mqtts}`).replaceAll(' -W 30 ', ' -W 120 ').replaceAll('timeout 30 ', 'timeout 120 ');
  const script = blocks.slice(1).map(ports).join('\n');
  expect(script).toContain(' -W 120 ');
  expect(script).toContain('timeout 120 ');
  const r = await bash(script, dir);
  const why = `${r.out}\nserver:\n${server.output().slice(-2000)}`;
  expect(r.code, why).toBe(0);
  expect(r.out, why).toContain('{"action":"blink","parameters":{}}');
  expect(r.out, why).toMatch(/\{"fingerprint":"[0-9a-f]{64}","deviceId":\d+,"subject":"CN=desk-lamp"/);
  expect(r.out, why).toMatch(/^204$/m);
  // what the docs say happens next: the revoked certificate is refused
  const pub = /^mosquitto_pub [\s\S]*?\n(?=\S|$)/m.exec(blocks[2])![0].replace(/\\\n/g, ' ');
  const again = await bash(`${ports(blocks[1]).split('\n').slice(0, 5).join('\n')}\n${ports(pub)}`, dir);
  expect(again.code).not.toBe(0);
  expect(again.out).toMatch(/not authori[sz]ed/i);
  // a start and three scripts on a loaded machine (240 s once ran out): only a hang should end it
}, 600_000);
