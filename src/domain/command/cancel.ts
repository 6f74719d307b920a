// cancelCommand (docs/concepts.md#command-outbox): an unfinished command becomes `cancelled` and
// is never sent again; a finished one (answered, expired, cancelled, or delivered without
// ackRequired) answers INVALID_STATE.
import type { DeviceRef, StoreOf, SystemArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import type { CommandRow } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { commandOf } from './outbox-read.js';
import { commandUpdated, type CommandUpdatedDeps } from './outbox-view.js';

export async function cancelCommand({
  deps,
  caller,
  input: { deviceId, commandId },
}: SystemArgs<CommandUpdatedDeps & StoreOf<'devices' | 'members' | 'commands'>, DeviceRef & { commandId: string }> & {
  /** absent: the system cancels on its own behalf (a rollout) */
  caller?: Caller;
}): Promise<CommandRow> {
  if (caller) await deviceFor(deps, caller, deviceId, ['project key', 'member'], 'commands');
  const row = await commandOf(deps, deviceId, commandId);
  const now = deps.clock.now().toISOString();
  const done = await deps.store.commands.finish(row.id, deviceId, 'cancel', { state: 'cancelled', finishTime: now });
  if (!done) throw new AppError('INVALID_STATE', { commandId, state: (await deps.store.commands.get(row.id))?.state ?? row.state });
  await commandUpdated(deps, done);
  return done;
}
