// Device certificates (docs/tls.md#client-certificates).
export * from './schemas.js';
export { addDeviceCertificate } from './add.js';
export { listDeviceCertificates } from './list.js';
export { revokeDeviceCertificate } from './revoke.js';
export { revokeIssuedCertificate, listCertificateRevocations } from './revoke-issued.js';
export { deviceForCertificate, refuseKeyIfCertificateRequired, refuseKeySignIn, type PresentedCertificate, type CertificateSignIn } from './sign-in.js';
export { normalizeFingerprint } from './parse.js';
export { removeDeviceCertificates } from './device-cleanup.js';
