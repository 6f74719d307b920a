// A throwaway certificate authority made with the `openssl` CLI at test time, in a temp directory
// removed when the test file ends: a CA, server certificates for 127.0.0.1/localhost signed by it
// (valid, or already expired), and a second CA nobody trusts.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServerCert {
  cert: string;
  key: string;
  /** sha256 fingerprint, as a TLS client sees it (getPeerCertificate().fingerprint256) */
  fingerprint256: string;
}

export interface Pki {
  dir: string;
  /** the CA certificate file (PEM) and its text */
  caFile: string;
  ca: string;
  /** a server certificate for CN, signed by this CA; `expired`: valid only in 2020 */
  serverCert(name: string, opts?: { expired?: boolean }): ServerCert;
  remove(): void;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

function caConfig(dir: string, name: string): string {
  const file = join(dir, `${name}.cnf`);
  writeFileSync(join(dir, `${name}-index.txt`), '');
  writeFileSync(join(dir, `${name}-serial`), '01\n');
  writeFileSync(
    file,
    [
      '[ ca ]',
      'default_ca = this_ca',
      '[ this_ca ]',
      `database = ${join(dir, `${name}-index.txt`)}`,
      `new_certs_dir = ${dir}`,
      `serial = ${join(dir, `${name}-serial`)}`,
      'default_md = sha256',
      'policy = any_name',
      'unique_subject = no',
      'copy_extensions = none',
      'x509_extensions = server',
      '[ any_name ]',
      'commonName = supplied',
      '[ server ]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature, keyEncipherment',
      'extendedKeyUsage = serverAuth',
      'subjectAltName = IP:127.0.0.1, DNS:localhost',
      '',
    ].join('\n'),
  );
  return file;
}

export function makePki(label = 'Hearth Test CA'): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-pki-'));
  const caKey = join(dir, 'ca.key');
  const caFile = join(dir, 'ca.pem');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      `/CN=${label}`,
    ],
    dir,
  );
  const config = caConfig(dir, 'ca');
  return {
    dir,
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    serverCert(name, opts = {}) {
      const key = join(dir, `${name}.key`);
      const csr = join(dir, `${name}.csr`);
      const cert = join(dir, `${name}.pem`);
      openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${name}`], dir);
      const validity = opts.expired ? ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'] : ['-days', '1'];
      openssl(['ca', '-batch', '-notext', '-rand_serial', '-config', config, '-cert', caFile, '-keyfile', caKey, '-in', csr, '-out', cert, ...validity], dir);
      return { cert, key, fingerprint256: new X509Certificate(readFileSync(cert)).fingerprint256 };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** puts a certificate and key where the server reads them (as an operator replaces files) */
export function install(from: ServerCert, to: { cert: string; key: string }): void {
  copyFileSync(from.cert, to.cert);
  copyFileSync(from.key, to.key);
}
