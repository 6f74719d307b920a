// ackCommand (docs/devices.md#command-outbox): the device's answer to an outbox command, over
// MQTT (`/devices/{id}/commandAck`, the id in the body) or HTTP (the id in the path), with its
// own key only. `status` ok (default) → acked, error → failed. An answer to an unknown or
// another device's command is NOT_FOUND, to a finished one INVALID_STATE: nothing changes.
import type { Body, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import type { CommandRow } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { CommandAckSchema, RESULT_MAX_BYTES } from './outbox-schemas.js';
import { commandOf } from './outbox-read.js';
import { commandUpdated, type CommandUpdatedDeps } from './outbox-view.js';

export async function ackCommand({
  deps,
  caller,
  input: { deviceId, commandId, body },
}: VerbArgs<
  CommandUpdatedDeps & StoreOf<'devices' | 'members' | 'commands'>,
  /** commandId: from the HTTP path; absent, the body's `id` (MQTT) */
  DeviceRef & Body & { commandId?: string }
>): Promise<CommandRow> {
  const device = await deviceFor(deps, caller, deviceId, ['self']);
  const ack = parseInput(CommandAckSchema, body);
  const id = commandId ?? ack.id;
  if (id === undefined) throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'id', message: 'id is required: the id of the command answered' }] });
  if (ack.result) {
    const size = Buffer.byteLength(JSON.stringify(ack.result));
    if (size > RESULT_MAX_BYTES) {
      throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'result', message: `result is ${size} bytes; the limit is ${RESULT_MAX_BYTES}` }] });
    }
  }
  const row = await commandOf(deps, device.id, id);
  const now = deps.clock.now().toISOString();
  const state = ack.status === 'error' ? 'failed' : 'acked';
  const done = await deps.store.commands.finish(row.id, device.id, 'answer', { state, finishTime: now, ackTime: now, result: ack.result ?? null });
  if (!done) throw new AppError('INVALID_STATE', { commandId: row.id, state: (await deps.store.commands.get(row.id))?.state ?? row.state });
  await commandUpdated(deps, done);
  return done;
}
