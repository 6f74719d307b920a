// A command of the outbox as answered, and the one place that announces its changes
// (docs/concepts.md#command-outbox): `_deviceCommandUpdated_ {id, action, state, result?}` on the
// device's event stream (history, user streams, webhooks), the outbox figures, and the command
// observers of Deps (the rollout a `firmware-update` command notifies for: rollout/track.ts).
import type { Deps, EmitDeps } from '../deps.js';
import type { CommandRow } from '../../ports/store.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import type { Command } from './outbox-schemas.js';

export const COMMAND_UPDATED = '_deviceCommandUpdated_';

export function toCommand(r: CommandRow): Command {
  const out: Command = {
    id: r.id,
    deviceId: r.deviceId,
    action: r.action,
    parameters: r.parameters,
    ackRequired: r.ackRequired,
    state: r.state,
    creationTime: r.creationTime,
    expirationTime: r.expirationTime,
  };
  if (r.sentTime) out.sentTime = r.sentTime;
  if (r.deliveredTime) out.deliveredTime = r.deliveredTime;
  if (r.ackTime) out.ackTime = r.ackTime;
  if (r.result) out.result = r.result;
  if (r.key !== null) out.key = r.key;
  return out;
}

/** the whole Store: the observers are handed these deps, with needs this file does not know */
export type CommandUpdatedDeps = EmitDeps & Pick<Deps, 'store' | 'outboxMetrics' | 'commandObservers'>;

/** after a state change is committed: the event, and the figures of a final state */
export async function commandUpdated(deps: CommandUpdatedDeps, r: CommandRow): Promise<void> {
  if (r.finishTime && r.state !== 'queued' && r.state !== 'sent') {
    deps.outboxMetrics.finished(r.state, (Date.parse(r.ackTime ?? r.finishTime) - Date.parse(r.creationTime)) / 1000);
  }
  // the device as it is now (its home may have changed since the command was created)
  const device = (await deps.store.devices.get(r.deviceId)) ?? { id: r.deviceId, deviceClass: '', homeId: null };
  const data: Record<string, unknown> = { id: r.id, action: r.action, state: r.state };
  if (r.result) data.result = r.result;
  await emitEvent(deps, { projectId: r.projectId, event: deviceSystemEvent(device, COMMAND_UPDATED, data, deps.ids.timestamp(deps.clock.now())) });
  // docs/firmware.md#rollouts: a rollout's notification moves its device (rollout/track.ts trackCommand)
  for (const observe of deps.commandObservers) await observe(deps, r);
}
