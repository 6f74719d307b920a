// The notification commands of a rollout that are still waiting (docs/firmware.md#rollouts):
// cancelled when the rollout is aborted, and a device's own when it installs the bundle (so it
// is not sent again). On abort only `queued` and `sent` ones (a delivered command is the
// device's already); on install also a delivered one still waiting for the device's answer.
import { AppError } from '../errors.js';
import { cancelCommand } from '../command/cancel.js';
import type { CommandUpdatedDeps } from '../command/outbox-view.js';
import type { StoreOf } from '../deps.js';

export type CancelDeps = CommandUpdatedDeps & StoreOf<'devices' | 'members' | 'commands'>;

/** true when it was cancelled now */
export async function cancelWaiting(deps: CancelDeps, deviceId: number, commandId: string, alsoDelivered = false): Promise<boolean> {
  const c = await deps.store.commands.get(commandId);
  if (!c || c.deviceId !== deviceId || c.finishTime !== null) return false;
  if (c.state !== 'queued' && c.state !== 'sent' && !(alsoDelivered && c.state === 'delivered')) return false;
  try {
    await cancelCommand({ deps, input: { deviceId, commandId } });
    return true;
  } catch (e) {
    // finished meanwhile (delivered, answered, expired): nothing to cancel
    if (e instanceof AppError && (e.reason === 'INVALID_STATE' || e.reason === 'NOT_FOUND')) return false;
    throw e;
  }
}
