// A device recorded a bundle (recordFirmwareInstallation, docs/firmware.md#rollouts): it is
// `installed` in the rollouts of that bundle, whether or not it downloaded from Hearth (its file
// may come from elsewhere), even after it was counted failed; an aborted rollout stays as it
// was. Its notification command, if still waiting, is cancelled: it has nothing left to say.
import type { Deps } from '../deps.js';
import type { StoreOf } from '../deps.js';
import { rolloutChanged, type RolloutTrackDeps } from './track.js';
import { cancelWaiting, type CancelDeps } from './cancel-commands.js';

export async function trackInstall(
  deps: Pick<Deps, 'clock'> & RolloutTrackDeps & CancelDeps & StoreOf<'rollouts'>,
  deviceId: number,
  bundleId: string,
): Promise<void> {
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
