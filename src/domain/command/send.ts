// sendCommandDevice (docs/api.md#device-operations, docs/concepts.md#devices): a command reaches every live connection of the device
// at once, on any node, through the bus; with none, 403 DEVICE_OFFLINE. Commands are not queued
// for later: an offline device never sees a command it was not there for.
import type { Body, Deps, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { CommandBodySchema, checkProjectAction } from './schemas.js';

export type SendCommandDeps = Pick<Deps, 'bus' | 'presence'> & StoreOf<'devices' | 'members' | 'projects'>;

export async function sendCommand({ deps, caller, input: { deviceId, body } }: VerbArgs<SendCommandDeps, DeviceRef & Body>): Promise<void> {
  // docs/concepts.md#devices: project key with scope `commands`, or a member of the device's home
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'member'], 'commands');
  const input = parseWith(CommandBodySchema, body);
  await checkProjectAction(deps, device.projectId, input.action);
  if ((await deps.presence.count(device.id)) === 0) throw new AppError('DEVICE_OFFLINE', { deviceId: device.id });
  await deps.bus.publish('command', { deviceId: device.id, command: { action: input.action, parameters: input.parameters ?? {} } });
}
