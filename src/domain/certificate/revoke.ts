// Revoke a device certificate (docs/tls.md#client-certificates): the row goes (the next sign-in with it
// is refused), then the bus tells every broker node to close the connections signed in with it,
// as revoking a project key does.
import type { DeviceRef, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { normalizeFingerprint } from './parse.js';
import { certificateDevice, revoked, type RevokeDeps } from './access.js';

export async function revokeDeviceCertificate({ deps, caller, input }: VerbArgs<RevokeDeps, DeviceRef & { fingerprint: string }>): Promise<void> {
  const d = await certificateDevice(deps, caller, input.deviceId);
  const fp = normalizeFingerprint(input.fingerprint);
  if (!(await deps.store.deviceCertificates.delete(d.id, fp))) throw new AppError('NOT_FOUND', { deviceId: d.id, fingerprint: fp });
  await revoked(deps, caller, d, fp, '');
}
