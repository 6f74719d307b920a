// Which device a client certificate signs in (docs/tls.md#client-certificates), for the broker (MQTTS,
// MQTT over WSS). The TLS layer has already proven the client holds the certificate's key and,
// for a certificate from HEARTH_TLS_CA_FILE, checked its chain and dates (`caVerified`).
import type { SystemArgs } from '../deps.js';
import type { Clock } from '../../ports/clock.js';
import type { DeviceRow, Store } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { deviceIdOfSubject, normalizeFingerprint } from './parse.js';

export interface PresentedCertificate {
  /** as Node reports it (`AB:CD:...`) */
  fingerprint256: string;
  /** the subject as `key=value` lines */
  subject: string;
  validFrom: string;
  validTo: string;
  /** the chain verified against HEARTH_TLS_CA_FILE (dates included) */
  caVerified: boolean;
}

export interface CertificateSignIn {
  device: DeviceRow;
  /** the certificate's fingerprint: revoking it closes the connections signed in with it */
  fingerprint?: string;
}

/**
 * `deviceId`: the MQTT user name when one was given (it must match). Refusals are
 * PERMISSION_DENIED (CONNACK 5 / 403): unknown, expired or revoked certificates, another device's.
 */
export async function deviceForCertificate({
  deps,
  input: { cert, deviceId },
}: SystemArgs<
  { store: Pick<Store, 'devices' | 'deviceCertificates'>; clock: Clock },
  { cert: PresentedCertificate; deviceId: number | undefined }
>): Promise<CertificateSignIn> {
  const now = deps.clock.now().getTime();
  const fingerprint = normalizeFingerprint(cert.fingerprint256);
  const refuse = (why: string) => new AppError('PERMISSION_DENIED', { message: `client certificate ${fingerprint.slice(0, 16)}…: ${why}` });
  if (new Date(cert.validTo).getTime() <= now) throw refuse(`expired on ${new Date(cert.validTo).toISOString()}`);
  if (new Date(cert.validFrom).getTime() > now) throw refuse(`not valid before ${new Date(cert.validFrom).toISOString()}`);
  if (await deps.store.deviceCertificates.revocation(fingerprint)) throw refuse('revoked');
  const registered = await deps.store.deviceCertificates.get(fingerprint);
  let id: number | undefined;
  if (registered) id = registered.deviceId;
  else if (cert.caVerified) id = deviceIdOfSubject(cert.subject);
  if (id === undefined) throw refuse(cert.caVerified ? 'issued by the CA but its subject CN is not device:<id>' : 'not registered on any device');
  if (deviceId !== undefined && deviceId !== id) throw refuse(`belongs to device ${id}, not ${deviceId}`);
  const device = await deps.store.devices.get(id);
  if (!device) throw new AppError('DEVICE_NOT_FOUND', { deviceId: id });
  return { device, fingerprint };
}

/** a device whose class requires a certificate may not sign in with its key alone */
export async function refuseKeyIfCertificateRequired(
  deps: { store: Pick<Store, 'deviceClasses'> },
  device: Pick<DeviceRow, 'projectId' | 'deviceClass'>,
): Promise<void> {
  const cls = await deps.store.deviceClasses.get(device.projectId, device.deviceClass);
  refuseKeySignIn({ deviceClass: device.deviceClass, certificateRequired: !!cls?.certificateRequired });
}

/** the same refusal, for a sign-in that read its class's certificateRequired with the device (DeviceRepo.signInByKeyHash) */
export function refuseKeySignIn(signIn: { deviceClass: string; certificateRequired: boolean }): void {
  if (signIn.certificateRequired)
    throw new AppError('PERMISSION_DENIED', { message: `devices of class ${signIn.deviceClass} sign in with a client certificate (certificateRequired)` });
}
