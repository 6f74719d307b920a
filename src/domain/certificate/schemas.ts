// Device certificates on the wire (docs/tls.md#client-certificates).
import * as v from 'valibot';
import { TimeSchema } from '../validate.js';

/** a PEM certificate is a few KiB; a chain or a bundle pasted by mistake is refused long before this */
export const PEM_MAX_CHARS = 16_384;

export const AddCertificateBodySchema = v.object({
  pem: v.pipe(
    v.string('pem must be a string holding a PEM certificate'),
    v.description('the device certificate, PEM (-----BEGIN CERTIFICATE-----); self-signed allowed; never a private key'),
    v.minLength(1, 'pem is required'),
    v.maxLength(PEM_MAX_CHARS, `pem must be at most ${PEM_MAX_CHARS} characters (one certificate)`),
  ),
});

export const CertificateSchema = v.object({
  fingerprint: v.pipe(v.string(), v.description('sha256 of the certificate (DER), lowercase hex: what DELETE takes')),
  deviceId: v.number(),
  subject: v.pipe(v.string(), v.description('the subject, one line (CN=desk-lamp, O=Acme)')),
  notBefore: v.pipe(TimeSchema, v.description('start of the validity period')),
  notAfter: v.pipe(TimeSchema, v.description('end of the validity period: the certificate is refused after it')),
  creationTime: TimeSchema,
});
export type Certificate = v.InferOutput<typeof CertificateSchema>;

export const RevokeCertificateBodySchema = v.object({
  fingerprint: v.pipe(
    v.string('fingerprint must be a string: the sha256 of the certificate, hex'),
    v.description('sha256 of the certificate (DER), hex with or without colons (openssl x509 -noout -fingerprint -sha256)'),
    v.regex(/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){31})$/, 'fingerprint must be a sha256 fingerprint: 64 hex digits, with or without colons'),
  ),
});

export const RevocationSchema = v.object({
  fingerprint: v.pipe(v.string(), v.description('sha256 of the revoked certificate, lowercase hex')),
  deviceId: v.number(),
  creationTime: TimeSchema,
});
export type Revocation = v.InferOutput<typeof RevocationSchema>;
