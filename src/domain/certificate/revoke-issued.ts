// Revoke a certificate by fingerprint (docs/tls.md#revoking-a-ca-issued-certificate): for a certificate the CA in
// HEARTH_TLS_CA_FILE issued, which was never registered and so cannot be deleted. The fingerprint
// is refused from then on, and the device's live connections signed in with it close on every node.
import type { Body, DeviceRef, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { normalizeFingerprint } from './parse.js';
import { RevokeCertificateBodySchema, type Revocation } from './schemas.js';
import { certificateDevice, revoked, type CertificateDeps, type RevokeDeps } from './access.js';

const view = (r: { fingerprint: string; deviceId: number; creationTime: string }): Revocation => ({
  fingerprint: r.fingerprint,
  deviceId: r.deviceId,
  creationTime: r.creationTime,
});

export async function revokeIssuedCertificate({ deps, caller, input: { deviceId, body } }: VerbArgs<RevokeDeps, DeviceRef & Body>): Promise<Revocation> {
  const d = await certificateDevice(deps, caller, deviceId);
  const fingerprint = normalizeFingerprint(parseInput(RevokeCertificateBodySchema, body).fingerprint);
  const registered = await deps.store.deviceCertificates.get(fingerprint);
  if (registered)
    throw new AppError('INVALID_PARAMETERS', {
      message: `certificate ${fingerprint} is registered on device ${registered.deviceId}: revoke it with DELETE /devices/${registered.deviceId}/certificates/${fingerprint}`,
    });
  const row = { fingerprint, deviceId: d.id, projectId: d.projectId, creationTime: deps.clock.now().toISOString() };
  if (!(await deps.store.deviceCertificates.revoke(row))) {
    const before = (await deps.store.deviceCertificates.revocation(fingerprint))!;
    throw new AppError('ALREADY_EXISTS', { message: `certificate ${fingerprint} was revoked on ${before.creationTime}`, fingerprint });
  }
  await revoked(deps, caller, d, fingerprint, ' (issued by the CA)');
  return view(row);
}

export async function listCertificateRevocations({ deps, caller, input: { deviceId } }: VerbArgs<CertificateDeps, DeviceRef>): Promise<Revocation[]> {
  const d = await certificateDevice(deps, caller, deviceId);
  return (await deps.store.deviceCertificates.revocations(d.id)).map(view);
}
