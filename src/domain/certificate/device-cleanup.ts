// A deleted device's certificates go with it (a certificate names one device): a cleanup of
// Deps.deviceDeletion (src/roles/deps.ts), run by the registry's device deletion (device/delete.ts).
import type { StoreOf } from '../deps.js';

export function removeDeviceCertificates(deps: StoreOf<'deviceCertificates'>, deviceId: number): Promise<number> {
  return deps.store.deviceCertificates.deleteForDevice(deviceId);
}
