// A registered certificate as the wire shows it (the PEM stays in the store).
import type { DeviceCertificateRow } from '../../ports/store.js';
import type { Certificate } from './schemas.js';

export const certificateView = (c: DeviceCertificateRow): Certificate => ({
  fingerprint: c.fingerprint,
  deviceId: c.deviceId,
  subject: c.subject,
  notBefore: c.notBefore,
  notAfter: c.notAfter,
  creationTime: c.creationTime,
});
