// The client certificates registered on a device (docs/tls.md#client-certificates), oldest first.
import type { DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import type { Certificate } from './schemas.js';
import { certificateView } from './view.js';

export async function listDeviceCertificates({
  deps,
  caller,
  input: { deviceId },
}: VerbArgs<StoreOf<'devices' | 'members' | 'deviceCertificates'>, DeviceRef>): Promise<Certificate[]> {
  const d = await deviceFor(deps, caller, deviceId, ['project key']);
  return (await deps.store.deviceCertificates.list(d.id)).map(certificateView);
}
