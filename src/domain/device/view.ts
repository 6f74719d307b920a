// A device as the wire shows it (docs/concepts.md#devices): null optional fields left out, and `apiKey` and
// `claimCode` only for privileged readers (the docs: "hidden except to privileged clients") — a
// project key with the `devices` scope — and in the answer that creates a device.
import type { DeviceRow } from '../../ports/store.js';
import type { Caller } from '../caller.js';
import { hasScope } from '../auth/access.js';
import type { Sealer } from '../crypto/sealer.js';
import type { Device } from './schemas.js';

export const revealsSecrets = (caller: Caller): boolean => hasScope(caller, 'devices');

/** `reveal` may carry the plaintext credentials when the caller has them (a device just created): nothing to unseal */
export function deviceView(sealer: Sealer, d: DeviceRow, reveal: boolean | { apiKey: string; claimCode: string }): Device {
  const out: Device = { id: d.id, projectId: d.projectId, deviceClass: d.deviceClass };
  if (d.homeId !== null) out.homeId = d.homeId;
  if (d.name !== null) out.name = d.name;
  if (d.description !== null) out.description = d.description;
  if (d.tag !== null) out.tag = d.tag;
  if (typeof reveal === 'object') {
    out.apiKey = reveal.apiKey;
    out.claimCode = reveal.claimCode;
  } else if (reveal) {
    out.apiKey = sealer.unseal(d.apiKeySealed);
    if (d.claimCodeSealed) out.claimCode = sealer.unseal(d.claimCodeSealed);
  }
  if (d.claimExpirationTime !== null) out.claimExpirationTime = d.claimExpirationTime;
  if (d.claimTime !== null) out.claimTime = d.claimTime;
  out.creationTime = d.creationTime;
  if (d.bundleInstalled !== null) out.bundleInstalled = d.bundleInstalled;
  if (d.bundleInstallTime !== null) out.bundleInstallTime = d.bundleInstallTime;
  if (d.channel !== null) out.channel = d.channel;
  out.isConnected = d.isConnected;
  if (d.lastConnectTime !== null) out.lastConnectTime = d.lastConnectTime;
  if (d.lastDisconnectTime !== null) out.lastDisconnectTime = d.lastDisconnectTime;
  return out;
}
