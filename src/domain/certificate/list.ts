// The client certificates registered on a device (docs/tls.md#client-certificates), oldest first.
import type { StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { deviceFor } from '../auth/access.js';
import type { Certificate } from './schemas.js';
import { certificateView } from './view.js';

export async function listDeviceCertificates({
  deps,
  caller,
  input: { deviceId },
}: {
  deps: StoreOf<'devices' | 'members' | 'deviceCertificates'>;
  caller: Caller;
  input: { deviceId: number };
}): Promise<Certificate[]> {
  const d = await deviceFor(deps, caller, deviceId, ['project key']);
  return (await deps.store.deviceCertificates.list(d.id)).map(certificateView);
}
