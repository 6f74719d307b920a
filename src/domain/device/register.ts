// Update device claimable state (docs/devices.md#claiming-and-provisioning, docs/concepts.md#devices: POST /deviceRegistration), by the device
// itself. `claimable: true` opens the window for `duration` seconds from now; `false` closes it
// now. A device already in a home cannot be made claimable (or closed): 403.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor, requireCaller } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { RegistrationBodySchema } from './schemas.js';

export async function updateClaimable({
  deps,
  caller,
  input: { body },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'devices' | 'members'>, Body>): Promise<{ claimExpirationTime: string }> {
  requireCaller(caller);
  if (caller.type !== 'device') throw new AppError('PERMISSION_DENIED', { required: 'the device itself' });
  const b = parseInput(RegistrationBodySchema, body);
  const d = await deviceFor(deps, caller, b.deviceId, ['self']);
  if (d.homeId !== null) throw new AppError('DEVICE_ALREADY_IN_HOME', { deviceId: d.id });
  const now = deps.clock.now();
  const claimExpirationTime = new Date(now.getTime() + (b.claimable ? b.duration! * 1000 : 0)).toISOString();
  await deps.store.devices.update(d.id, { claimExpirationTime });
  return { claimExpirationTime };
}
