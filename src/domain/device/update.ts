// updateDeviceInfo (docs/api.md#device-operations, docs/concepts.md#devices): name, description and tag by a project key or a home
// member; a project key also homeId (null removes the device from its home) and claimCode (null
// removes it). Every other field is read-only: sent back unchanged it is ignored, changed it is
// 403 READ_ONLY_FIELD. The presence fields are ignored whatever their value: they change under
// any client between its read and its write.
import type { Body, Deps, DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import type { DevicePatch } from '../../ports/store.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { claimCodeFields } from './credentials.js';
import { DEVICE_FIELDS, PatchDeviceBodySchema } from './schemas.js';
import { deviceView, revealsSecrets } from './view.js';

const ALWAYS_WRITABLE: readonly string[] = ['name', 'description', 'tag'];
const KEY_WRITABLE: readonly string[] = ['homeId', 'claimCode'];
const PRESENCE: readonly string[] = ['isConnected', 'lastConnectTime', 'lastDisconnectTime'];

export async function updateDevice({
  deps,
  caller,
  input: { deviceId, body },
}: VerbArgs<Pick<Deps, 'clock' | 'sealer'> & StoreOf<'devices' | 'homes' | 'members'>, DeviceRef & Body>): Promise<void> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member']);
  const b = parseInput(PatchDeviceBodySchema, body);
  const isKey = caller.type === 'project key';
  const writable = isKey ? [...ALWAYS_WRITABLE, ...KEY_WRITABLE] : ALWAYS_WRITABLE;
  const readOnly = DEVICE_FIELDS.filter((f) => !writable.includes(f) && !PRESENCE.includes(f));
  checkReadOnly(b, deviceView(deps.sealer, d, revealsSecrets(caller)), readOnly);

  const patch: DevicePatch = { name: b.name, description: b.description, tag: b.tag };
  const now = deps.clock.now().toISOString();
  if (isKey && b.homeId !== undefined && b.homeId !== d.homeId) {
    if (b.homeId !== null) {
      const home = await deps.store.homes.get(b.homeId);
      if (!home || home.projectId !== d.projectId) throw new AppError('HOME_NOT_FOUND', { homeId: b.homeId });
      // placed in a home by the project: that is its claim, and any open window closes
      patch.claimTime = now;
      if (d.claimExpirationTime && d.claimExpirationTime > now) patch.claimExpirationTime = now;
    }
    patch.homeId = b.homeId;
  }
  if (isKey && b.claimCode !== undefined) {
    if (b.claimCode === null) Object.assign(patch, { claimCodeHash: null, claimCodeSealed: null });
    else {
      const fields = claimCodeFields(deps.sealer, b.claimCode);
      const holder = await deps.store.devices.getByClaimHash(fields.claimCodeHash);
      if (holder && holder.id !== d.id) throw new AppError('ALREADY_EXISTS', { fields: ['claimCode'] });
      Object.assign(patch, fields);
    }
  }
  await deps.store.devices.update(d.id, patch);
}
