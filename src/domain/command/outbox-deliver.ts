// The broker's side of the outbox (docs/concepts.md#command-outbox), as verbs of the system (no
// caller): claim the commands due on one live connection, and record what its transport
// confirmed. A claim is one statement in the store, so in cluster mode exactly one broker sends
// a command on a given connection; a broker killed after claiming loses nothing, since a
// command still `sent` goes out again on the device's next connection.
import type { StoreOf, SystemArgs } from '../deps.js';
import type { CommandRow } from '../../ports/store.js';
import { commandUpdated, type CommandUpdatedDeps } from './outbox-view.js';

export type OutboxDeliveryDeps = CommandUpdatedDeps & StoreOf<'devices' | 'commands'>;

/** the wire form of an outbox command (docs/devices.md#command-outbox): a direct command's fields plus `id` */
export const commandMessage = (r: CommandRow) => ({ action: r.action, parameters: r.parameters, id: r.id });

/**
 * The commands to write now to connection `connectionId` of the device, in creation order.
 * `fresh`: the connection just subscribed (or opened its WebSocket): everything due, including
 * what an earlier connection got without confirming; else only what no connection got yet.
 */
export async function claimCommands({
  deps,
  input: { deviceId, connectionId, fresh },
}: SystemArgs<OutboxDeliveryDeps, { deviceId: number; connectionId: string; fresh: boolean }>): Promise<CommandRow[]> {
  // every connect claims: the time's text made once per millisecond (deps.ids.timestamp, issue #25)
  const rows = await deps.store.commands.claim(deviceId, connectionId, deps.ids.timestamp(deps.clock.now()), fresh);
  // the first write of a command is its change to `sent`; later ones change no state
  for (const r of rows) if (r.sends === 1) await commandUpdated(deps, r);
  return rows;
}

/** the transport confirmed the command written to this connection (PUBACK, or the frame flushed) */
export async function commandDelivered({
  deps,
  input: { commandId, connectionId },
}: SystemArgs<OutboxDeliveryDeps, { commandId: string; connectionId: string }>): Promise<CommandRow | undefined> {
  const row = await deps.store.commands.get(commandId);
  if (!row) return undefined;
  const done = await deps.store.commands.delivered(commandId, connectionId, deps.clock.now().toISOString(), !row.ackRequired);
  if (done) await commandUpdated(deps, done);
  return done;
}
