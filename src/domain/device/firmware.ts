// recordFirmwareInstallation (docs/api.md#device-operations rule 10, docs/concepts.md#devices): the device (or a project key) reports
// the bundle it installed. The bundle must exist in the device's project, else 404
// BUNDLE_NOT_FOUND. The bundle's class is not checked against the device's: this records what
// the device says it runs. It counts as installed in the rollouts of the bundle
// (docs/firmware.md#rollouts).
import type { Body, Deps, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { FirmwareBodySchema } from './schemas.js';
import { trackInstall } from '../rollout/installed.js';
import type { RolloutTrackDeps } from '../rollout/track.js';
import type { CancelDeps } from '../rollout/cancel-commands.js';

export async function recordFirmwareInstallation({
  deps,
  caller,
  input: { deviceId, body },
}: VerbArgs<Pick<Deps, 'clock'> & RolloutTrackDeps & CancelDeps & StoreOf<'bundles' | 'devices' | 'members' | 'rollouts'>, DeviceRef & Body>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'self']);
  const { bundleId } = parseInput(FirmwareBodySchema, body);
  const bundle = await deps.store.bundles.get(bundleId);
  if (!bundle || bundle.projectId !== d.projectId) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
  await deps.store.devices.update(d.id, { bundleInstalled: bundle.id, bundleInstallTime: deps.clock.now().toISOString() });
  await trackInstall(deps, d.id, bundle.id);
}
