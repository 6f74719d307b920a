// Reading a client certificate (docs/tls.md#client-certificates): one PEM certificate, checked with
// node:crypto's X509Certificate, with an error that says what was pasted instead.
import { X509Certificate } from 'node:crypto';
import { AppError } from '../errors.js';
import { parseId } from '../id.js';

export interface ParsedCertificate {
  fingerprint: string;
  subject: string;
  notBefore: string;
  notAfter: string;
  pem: string;
}

const bad = (message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path: 'pem', message }] });

/** `AB:CD:...` (as Node and openssl print it) or `abcd...` → the lowercase hex the API uses */
export function normalizeFingerprint(text: string): string {
  return text.replace(/:/g, '').toLowerCase();
}

/** subject lines as one line: `CN=lamp-1, O=Acme` */
export const subjectLine = (subject: string): string => subject.split('\n').filter(Boolean).join(', ');

/** the device id a CA-issued certificate names: subject CN `device:<id>` */
export function deviceIdOfSubject(subject: string): number | undefined {
  const cn = /^CN=device:(\S+)$/m.exec(subject);
  return cn ? parseId(cn[1]) : undefined;
}

export function parseCertificate(pem: string, now: Date): ParsedCertificate {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem))
    throw bad('pem holds a private key: register the certificate (-----BEGIN CERTIFICATE-----), and keep the key on the device');
  if (/-----BEGIN CERTIFICATE REQUEST-----/.test(pem)) throw bad('pem holds a certificate request (CSR), not a certificate: sign it first');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
  if (blocks === 0) throw bad('pem holds no PEM certificate (expected a -----BEGIN CERTIFICATE----- block)');
  if (blocks > 1) throw bad('pem holds more than one certificate: register the device certificate alone');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pem);
  } catch (e) {
    throw bad(`pem is not a readable certificate: ${(e as Error).message}`);
  }
  const notBefore = new Date(x509.validFrom);
  const notAfter = new Date(x509.validTo);
  if (notAfter.getTime() <= now.getTime()) throw bad(`the certificate expired on ${notAfter.toISOString()}`);
  const body = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem)![0];
  return {
    fingerprint: normalizeFingerprint(x509.fingerprint256),
    subject: subjectLine(x509.subject),
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
    pem: body + '\n',
  };
}
