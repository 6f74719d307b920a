// updateDeviceTag (docs/api.md#device-operations, docs/concepts.md#firmware-bundles): the device itself, a project key or a home member.
import type { Body, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { parseInput } from '../validate.js';
import { TagBodySchema } from './schemas.js';

export async function updateDeviceTag({ deps, caller, input: { deviceId, body } }: VerbArgs<StoreOf<'devices' | 'members'>, DeviceRef & Body>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member', 'self']);
  const { tag } = parseInput(TagBodySchema, body);
  await deps.store.devices.update(d.id, { tag });
}
