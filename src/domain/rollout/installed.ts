// recordFirmwareInstallation (docs/api.md#device-operations rule 10, docs/concepts.md#devices): the device (or a project key)
// reports the bundle it installed. The bundle must exist in the device's project, else 404
// BUNDLE_NOT_FOUND. The bundle's class is not checked against the device's: this records what
// the device says it runs. A rollout verb, as it moves the device in the rollouts of that bundle
// (docs/firmware.md#rollouts): `installed`, whether or not it downloaded from Hearth (its file may
// come from elsewhere), even after it was counted failed; an aborted rollout stays as it was. Its
// notification command, if still waiting, is cancelled: it has nothing left to say.
import type { Body, Deps, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { FirmwareBodySchema } from '../device/schemas.js';
import { rolloutChanged, type RolloutTrackDeps } from './track.js';
import { cancelWaiting, type CancelDeps } from './cancel-commands.js';

type InstallDeps = Pick<Deps, 'clock'> & RolloutTrackDeps & CancelDeps & StoreOf<'rollouts'>;

export async function recordFirmwareInstallation({
  deps,
  caller,
  input: { deviceId, body },
}: VerbArgs<InstallDeps & StoreOf<'bundles' | 'devices' | 'members'>, DeviceRef & Body>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'self']);
  const { bundleId } = parseInput(FirmwareBodySchema, body);
  const bundle = await deps.store.bundles.get(bundleId);
  if (!bundle || bundle.projectId !== d.projectId) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
  await deps.store.devices.update(d.id, { bundleInstalled: bundle.id, bundleInstallTime: deps.clock.now().toISOString() });
  await trackInstall(deps, d.id, bundle.id);
}

export async function trackInstall(deps: InstallDeps, deviceId: number, bundleId: string): Promise<void> {
  const rows = await deps.store.rollouts.ofDevice(deviceId, bundleId, ['pending', 'notified', 'downloading', 'failed']);
  const now = deps.clock.now().toISOString();
  for (const row of rows) {
    if (row.rolloutState === 'aborted') continue;
    const moved = await deps.store.rollouts.move(row.rolloutId, deviceId, ['pending', 'notified', 'downloading', 'failed'], 'installed', now, null);
    if (!moved) continue;
    if (moved.commandId) await cancelWaiting(deps, deviceId, moved.commandId, true);
    await rolloutChanged(deps, row.rolloutId);
  }
}
