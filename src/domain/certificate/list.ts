// The client certificates registered on a device (docs/tls.md#client-certificates), oldest first.
import type { DeviceRef, VerbArgs } from '../deps.js';
import { certificateDevice, type CertificateDeps } from './access.js';
import type { Certificate } from './schemas.js';
import { certificateView } from './view.js';

export async function listDeviceCertificates({ deps, caller, input: { deviceId } }: VerbArgs<CertificateDeps, DeviceRef>): Promise<Certificate[]> {
  const d = await certificateDevice(deps, caller, deviceId);
  return (await deps.store.deviceCertificates.list(d.id)).map(certificateView);
}
