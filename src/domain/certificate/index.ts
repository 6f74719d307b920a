// Device certificates (docs/tls.md#client-certificates).
import { deviceCleanups } from '../device/delete.js';

export * from './schemas.js';
export { addDeviceCertificate } from './add.js';
export { listDeviceCertificates } from './list.js';
export { revokeDeviceCertificate } from './revoke.js';
export { revokeIssuedCertificate, listCertificateRevocations } from './revoke-issued.js';
export { deviceForCertificate, refuseKeyIfCertificateRequired, type PresentedCertificate, type CertificateSignIn } from './sign-in.js';
export { normalizeFingerprint } from './parse.js';

// a deleted device's certificates go with it (a certificate names one device)
deviceCleanups.push(async (deps, device) => {
  await deps.store.deviceCertificates.deleteForDevice(device.id);
});
