// enqueueCommand (docs/concepts.md#command-outbox): a command that waits for the device. It is
// stored first (durable), then announced on the bus so that whichever broker holds the device's
// connection sends it at once; a device offline gets it when it next subscribes or opens its
// command WebSocket. Without a caller it is the system's own (a rollout): no access check.
import type { Body, Deps, DeviceRef, StoreOf, SystemArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import type { CommandRow, DeviceRow } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput, parseWith } from '../validate.js';
import { CommandBodySchema, checkProjectAction } from './schemas.js';
import { OutboxFieldsSchema, TTL_DEFAULT_SECONDS } from './outbox-schemas.js';
import { commandUpdated, type CommandUpdatedDeps } from './outbox-view.js';

export type EnqueueCommandDeps = Pick<Deps, 'bus' | 'clock' | 'limits'> & CommandUpdatedDeps & StoreOf<'devices' | 'members' | 'commands' | 'projects'>;

export async function enqueueCommand({
  deps,
  caller,
  input: { deviceId, body },
  announce = true,
}: SystemArgs<EnqueueCommandDeps, DeviceRef & Body> & {
  /** absent: the system enqueues on its own behalf */
  caller?: Caller;
  /**
   * false: stored, not announced; the caller publishes `outbox` for the device once it has decided
   * the command stands (a rollout's pass, after checking it was not aborted meanwhile). Until then
   * only a device that subscribes or opens its command WebSocket in between reads it.
   */
  announce?: boolean;
}): Promise<{ command: CommandRow; created: boolean }> {
  // docs/concepts.md#command-outbox: the same credentials as PUT /devices/{id}/command
  const device: DeviceRow | undefined = caller
    ? await deviceFor(deps, caller, deviceId, ['project key', 'member'], 'commands')
    : await deps.store.devices.get(deviceId);
  if (!device) throw new AppError('DEVICE_NOT_FOUND', { deviceId });
  const fields = parseInput(OutboxFieldsSchema, body);
  // the action and parameters exactly as the direct command takes them (send.ts)
  const { action, parameters } = parseWith(CommandBodySchema, body);
  await checkProjectAction(deps, device.projectId, action);
  const now = deps.clock.now();
  const ttl = fields.ttl ?? TTL_DEFAULT_SECONDS;
  const limit = deps.limits.outboxPerDevice;
  const r = await deps.store.commands.create(
    {
      // an event id: time-ordered, so the outbox lists in creation order (crypto/ids.ts)
      id: deps.ids.event(now),
      projectId: device.projectId,
      deviceId: device.id,
      action,
      parameters: parameters ?? {},
      ackRequired: fields.ackRequired ?? false,
      key: fields.key ?? null,
      creationTime: now.toISOString(),
      expirationTime: new Date(now.getTime() + ttl * 1000).toISOString(),
    },
    limit,
  );
  if ('full' in r) throw new AppError('LIMIT_EXCEEDED', { deviceId: device.id, outboxPerDevice: limit });
  if (r.existing) return { command: r.row, created: false };
  await commandUpdated(deps, r.row);
  if (announce) await deps.bus.publish('outbox', { deviceId: device.id });
  return { command: r.row, created: true };
}
