// Revoke a device certificate (docs/tls.md#client-certificates): the row goes (the next sign-in with it
// is refused), then the bus tells every broker node to close the connections signed in with it,
// as revoking a project key does.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { normalizeFingerprint } from './parse.js';

export async function revokeDeviceCertificate({
  deps,
  caller,
  input: { deviceId, fingerprint },
}: VerbArgs<
  Pick<Deps, 'bus' | 'clock'> & StoreOf<'devices' | 'members' | 'deviceCertificates' | 'logs'>,
  { deviceId: number; fingerprint: string }
>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key']);
  const fp = normalizeFingerprint(fingerprint);
  if (!(await deps.store.deviceCertificates.delete(d.id, fp))) throw new AppError('NOT_FOUND', { deviceId: d.id, fingerprint: fp });
  await deps.bus.publish('revoke', { kind: 'deviceCertificate', deviceId: d.id, fingerprint: fp });
  await writeLog({ deps, input: { projectId: d.projectId, caller, level: 'info', source: 'api', text: `certificate ${fp} of device ${d.id} revoked` } });
}
