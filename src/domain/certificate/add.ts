// Register a client certificate on a device (docs/tls.md#client-certificates): a project key with
// scope devices; self-signed is fine, the fingerprint is what the device is recognised by.
import type { Body, Deps, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { certificateDevice, type CertificateDeps } from './access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { parseCertificate } from './parse.js';
import { AddCertificateBodySchema, type Certificate } from './schemas.js';
import { certificateView } from './view.js';

export async function addDeviceCertificate({
  deps,
  caller,
  input: { deviceId, body },
}: VerbArgs<Pick<Deps, 'clock'> & CertificateDeps & StoreOf<'logs'>, DeviceRef & Body>): Promise<Certificate> {
  const d = await certificateDevice(deps, caller, deviceId);
  const { pem } = parseInput(AddCertificateBodySchema, body);
  const now = deps.clock.now();
  const cert = parseCertificate(pem, now);
  const row = { ...cert, deviceId: d.id, projectId: d.projectId, creationTime: now.toISOString() };
  if (!(await deps.store.deviceCertificates.add(row))) {
    const other = await deps.store.deviceCertificates.get(cert.fingerprint);
    // the same certificate on another device would make sign-in ambiguous
    throw new AppError(
      'ALREADY_EXISTS',
      other?.deviceId === d.id ? { fingerprint: cert.fingerprint } : { fingerprint: cert.fingerprint, onAnotherDevice: true },
    );
  }
  await writeLog({
    deps,
    input: {
      projectId: d.projectId,
      caller,
      level: 'info',
      source: 'api',
      text: `certificate ${cert.fingerprint} (${cert.subject}) registered on device ${d.id}`,
    },
  });
  return certificateView(row);
}
