// listCommands, getCommand (docs/concepts.md#command-outbox): the device's outbox, newest first,
// for whoever may send it commands.
import type { StoreOf, VerbArgs } from '../deps.js';
import type { CommandRow, Page, Paged } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { CommandListQuerySchema } from './outbox-schemas.js';

export type ReadCommandsDeps = StoreOf<'devices' | 'members' | 'commands'>;

export async function listCommands({
  deps,
  caller,
  input: { deviceId, query, page },
}: VerbArgs<ReadCommandsDeps, { deviceId: number; query: unknown; page: Page }>): Promise<Paged<CommandRow>> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member'], 'commands');
  const q = parseWith(CommandListQuerySchema, query);
  return deps.store.commands.list(device.id, q.state ? [q.state] : undefined, page);
}

/** the command of this device, else NOT_FOUND (another device's command does not exist here) */
export async function commandOf(deps: StoreOf<'commands'>, deviceId: number, commandId: string): Promise<CommandRow> {
  const row = await deps.store.commands.get(commandId);
  if (!row || row.deviceId !== deviceId) throw new AppError('NOT_FOUND', { commandId });
  return row;
}

export async function getCommand({
  deps,
  caller,
  input: { deviceId, commandId },
}: VerbArgs<ReadCommandsDeps, { deviceId: number; commandId: string }>): Promise<CommandRow> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member'], 'commands');
  return commandOf(deps, device.id, commandId);
}
