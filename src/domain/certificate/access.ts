// Who manages a device's certificates (docs/tls.md#client-certificates): a project key of the
// device's project with scope devices. What every certificate verb reads, and what a revocation
// tells the other nodes and the general log.
import type { Caller } from '../caller.js';
import type { Deps, StoreOf } from '../deps.js';
import type { DeviceRow } from '../../ports/store.js';
import { deviceFor, type DeviceAccessDeps } from '../auth/access.js';
import { writeLog } from '../log/write.js';

export type CertificateDeps = DeviceAccessDeps & StoreOf<'deviceCertificates'>;
export type RevokeDeps = Pick<Deps, 'bus' | 'clock'> & CertificateDeps & StoreOf<'logs'>;

/** the device whose certificates the caller manages */
export const certificateDevice = (deps: CertificateDeps, caller: Caller, deviceId: number) => deviceFor(deps, caller, deviceId, ['project key']);

/** a certificate revoked: every broker node closes the connections signed in with it, and the general log says so */
export async function revoked(deps: RevokeDeps, caller: Caller, d: DeviceRow, fingerprint: string, how: string): Promise<void> {
  await deps.bus.publish('revoke', { kind: 'deviceCertificate', deviceId: d.id, fingerprint });
  await writeLog({
    deps,
    input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `certificate ${fingerprint} of device ${d.id} revoked${how}` },
  });
}
