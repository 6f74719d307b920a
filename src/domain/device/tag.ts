// updateDeviceTag (docs/api.md#device-operations, docs/concepts.md#firmware-bundles): the device itself, a project key or a home member.
import type { StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { deviceFor } from '../auth/access.js';
import { parseInput } from '../validate.js';
import { TagBodySchema } from './schemas.js';

export async function updateDeviceTag({
  deps,
  caller,
  input: { deviceId, body },
}: {
  deps: StoreOf<'devices' | 'members'>;
  caller: Caller;
  input: { deviceId: number; body: unknown };
}): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member', 'self']);
  const { tag } = parseInput(TagBodySchema, body);
  await deps.store.devices.update(d.id, { tag });
}
