// addDeviceHome form 3 (docs/api.md#device-operations rules 4–5, docs/concepts.md#devices): a pre-provisioned device created by a
// project key (`devices`) or a user with canCreateDevices, in the caller's project. It gets a new
// API key and claim code, both in the answer. Without a home it is claimable for CLAIM_WINDOW
// seconds from creation; with a home (the caller must be able to add to it) it is already claimed.
import type { Deps, StoreOf } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { homeFor, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { listProjectId } from '../project/access.js';
import { newClaimCode, newDeviceKey } from './credentials.js';
import type { Device } from './schemas.js';
import { deviceView } from './view.js';

/** a fresh pre-provisioned device can be claimed for a day, then needs POST /deviceRegistration */
export const CLAIM_WINDOW_SECONDS = 24 * 3600;

export interface CreateDeviceInput {
  projectId: number;
  deviceClass: string;
  homeId?: number;
  name?: string;
  description?: string;
  tag?: string;
  channel?: string;
  bundleInstalled?: string;
}

export async function createDevice({
  deps,
  caller,
  input,
}: {
  deps: Pick<Deps, 'clock' | 'secret'> & StoreOf<'deviceClasses' | 'devices' | 'homes' | 'logs' | 'members'>;
  caller: Caller;
  input: CreateDeviceInput;
}): Promise<Device> {
  const projectId = listProjectId(caller, input.projectId);
  if (caller.type === 'project key') requireProjectKey(caller, projectId, 'devices');
  else if (caller.type !== 'user' || !caller.canCreateDevices) {
    throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices, or a user allowed to create devices' });
  }
  if (!(await deps.store.deviceClasses.get(projectId, input.deviceClass))) throw new AppError('UNKNOWN_DEVICE_CLASS', { deviceClass: input.deviceClass });
  if (input.homeId !== undefined) await homeFor(deps, caller, input.homeId, ['project key', 'member'], 'devices');

  const now = deps.clock.now();
  const iso = now.toISOString();
  const key = newDeviceKey(deps.secret);
  const code = newClaimCode(deps.secret);
  const inHome = input.homeId !== undefined;
  const row = await deps.store.devices.create({
    projectId,
    deviceClass: input.deviceClass,
    homeId: input.homeId ?? null,
    name: input.name ?? null,
    description: input.description ?? null,
    tag: input.tag ?? null,
    apiKeyHash: key.apiKeyHash,
    apiKeySealed: key.apiKeySealed,
    claimCodeHash: code.claimCodeHash,
    claimCodeSealed: code.claimCodeSealed,
    claimExpirationTime: inHome ? null : new Date(now.getTime() + CLAIM_WINDOW_SECONDS * 1000).toISOString(),
    claimTime: inHome ? iso : null,
    creationTime: iso,
    bundleInstalled: input.bundleInstalled ?? null,
    bundleInstallTime: input.bundleInstalled ? iso : null,
    channel: input.channel ?? null,
  });
  await writeLog({
    deps,
    input: {
      projectId,
      caller,
      level: 'info',
      source: 'api',
      text: `device ${row.id} created (class ${row.deviceClass}${inHome ? `, home ${row.homeId}` : ''})`,
    },
  });
  // the creator gets the credentials it has to flash into the device
  return deviceView(deps.secret, row, true);
}
