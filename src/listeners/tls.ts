// The TLS material of the HTTPS and MQTTS listeners (docs/operations.md#configuration): the PEM files named by
// HEARTH_TLS_CERT_FILE, HEARTH_TLS_KEY_FILE and (optional) HEARTH_TLS_CA_FILE, read and checked
// at start (a bad file stops start-up with one line naming its variable) and again on SIGHUP,
// when the servers get the new context with setSecureContext: connections already open keep the
// session they negotiated, the next handshake presents the new certificate. A reload that fails
// keeps the old certificate.
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { createSecureContext, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';

const CERT = 'HEARTH_TLS_CERT_FILE';
const KEY = 'HEARTH_TLS_KEY_FILE';
const CA = 'HEARTH_TLS_CA_FILE';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  caFile: string | null;
}

export interface TlsMaterial {
  /** what tls.createServer and setSecureContext take */
  options: SecureContextOptions;
  subject: string;
  validTo: Date;
  fingerprint256: string;
}

/** the files to serve TLS with, or undefined when TLS is off; one set without the other is an error */
export function tlsFilesOf(config: Config): TlsFiles | undefined {
  const { certFile, keyFile, caFile } = config.tls;
  if (!certFile && !keyFile) {
    if (caFile) throw new ConfigError(`${CA}: set only with ${CERT} and ${KEY} (TLS is off without them)`);
    return undefined;
  }
  if (!keyFile) throw new ConfigError(`${KEY}: ${CERT} is set but ${KEY} is not; set both (the PEM certificate chain and its private key) or neither`);
  if (!certFile) throw new ConfigError(`${CERT}: ${KEY} is set but ${CERT} is not; set both (the PEM certificate chain and its private key) or neither`);
  return { certFile, keyFile, caFile };
}

function read(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${variable}: cannot read ${file}: ${(e as Error).message}`);
  }
}

/** reads and checks the files; a problem is a ConfigError naming the variable of the file at fault */
export function readTls(files: TlsFiles): TlsMaterial {
  const cert = read(files.certFile, CERT);
  const key = read(files.keyFile, KEY);
  const ca = files.caFile ? read(files.caFile, CA) : undefined;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new ConfigError(`${CERT}: ${files.certFile} holds no PEM certificate: ${(e as Error).message}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new ConfigError(`${KEY}: ${files.keyFile} holds no unencrypted PEM private key: ${(e as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new ConfigError(`${KEY}: the key in ${files.keyFile} does not belong to the certificate in ${files.certFile} (${CERT})`);
  if (ca !== undefined) {
    try {
      if (!/-----BEGIN CERTIFICATE-----/.test(ca)) throw new Error('no BEGIN CERTIFICATE block');
      createSecureContext({ ca });
    } catch (e) {
      throw new ConfigError(`${CA}: ${files.caFile} holds no PEM certificates: ${(e as Error).message}`);
    }
  }
  const options: SecureContextOptions = ca === undefined ? { cert, key } : { cert, key, ca };
  try {
    createSecureContext(options);
  } catch (e) {
    throw new ConfigError(`${CERT}: cannot use ${files.certFile} with ${files.keyFile}: ${(e as Error).message}`);
  }
  return { options, subject: x509.subject.replace(/\n/g, ', '), validTo: new Date(x509.validTo), fingerprint256: x509.fingerprint256 };
}

/** a certificate past its end is served (the operator may be replacing it) but said loudly */
export function warnIfExpiring(material: TlsMaterial, logger: Logger, now = Date.now()): void {
  if (material.validTo.getTime() <= now)
    logger.error(`${CERT}: the certificate (${material.subject}) expired on ${material.validTo.toISOString()}; clients will refuse it`);
}

export interface TlsReloader {
  /** rereads the files; on success every TLS server gets them for its next handshakes */
  reload(): boolean;
}

export function createTlsReloader(files: TlsFiles, servers: TlsServer[], logger: Logger): TlsReloader {
  return {
    reload() {
      let material: TlsMaterial;
      try {
        material = readTls(files);
      } catch (e) {
        logger.error(`TLS reload failed, keeping the certificate in use: ${(e as Error).message}`);
        return false;
      }
      for (const s of servers) s.setSecureContext(material.options);
      warnIfExpiring(material, logger);
      logger.info(`TLS certificate reloaded: ${material.subject}, valid until ${material.validTo.toISOString()}, sha256 ${material.fingerprint256}`);
      return true;
    },
  };
}
