// addDeviceHome form 3 (docs/api.md#device-operations rules 4–5, docs/concepts.md#devices): a pre-provisioned device created by a
// project key (`devices`) or a user with canCreateDevices, in the caller's project. It gets a new
// API key and claim code, both in the answer. Without a home it is claimable for CLAIM_WINDOW
// seconds from creation; with a home (the caller must be able to add to it) it is already claimed.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
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

type CreateDeps = Pick<Deps, 'clock' | 'sealer' | 'random'> & StoreOf<'deviceClasses' | 'devices' | 'homes' | 'logs' | 'members'>;

export async function createDevice({ deps, caller, input }: VerbArgs<CreateDeps, CreateDeviceInput>): Promise<Device> {
  const [d] = await createDevices({ deps, caller, input: { projectId: input.projectId, devices: [input] } });
  return d;
}

/**
 * Many devices of one project at once (`devices import`): access, each class and each home are
 * checked once, the rows go in with one statement per chunk and the general log gets one line
 * for all of them. All or nothing only inside the caller's transaction.
 */
export async function createDevices({
  deps,
  caller,
  input,
}: VerbArgs<CreateDeps, { projectId: number; devices: readonly Omit<CreateDeviceInput, 'projectId'>[] }>): Promise<Device[]> {
  const projectId = listProjectId(caller, input.projectId);
  if (caller.type === 'project key') requireProjectKey(caller, projectId, 'devices');
  else if (caller.type !== 'user' || !caller.canCreateDevices) {
    throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices, or a user allowed to create devices' });
  }
  for (const deviceClass of new Set(input.devices.map((d) => d.deviceClass))) {
    if (!(await deps.store.deviceClasses.get(projectId, deviceClass))) throw new AppError('UNKNOWN_DEVICE_CLASS', { deviceClass });
  }
  for (const homeId of new Set(input.devices.map((d) => d.homeId))) {
    if (homeId !== undefined) await homeFor(deps, caller, homeId, ['project key', 'member'], 'devices');
  }

  const now = deps.clock.now();
  const iso = now.toISOString();
  const claimable = new Date(now.getTime() + CLAIM_WINDOW_SECONDS * 1000).toISOString();
  // each row back to its input by its key's hash: the answer is in the order of the input
  const secrets = new Map<string, { apiKey: string; claimCode: string; at: number }>();
  const rows = await deps.store.devices.createMany(
    input.devices.map((d, at) => {
      const key = newDeviceKey(deps);
      const code = newClaimCode(deps);
      secrets.set(key.apiKeyHash, { apiKey: key.apiKey, claimCode: code.claimCode, at });
      const inHome = d.homeId !== undefined;
      return {
        projectId,
        deviceClass: d.deviceClass,
        homeId: d.homeId ?? null,
        name: d.name ?? null,
        description: d.description ?? null,
        tag: d.tag ?? null,
        apiKeyHash: key.apiKeyHash,
        apiKeySealed: key.apiKeySealed,
        claimCodeHash: code.claimCodeHash,
        claimCodeSealed: code.claimCodeSealed,
        claimExpirationTime: inHome ? null : claimable,
        claimTime: inHome ? iso : null,
        creationTime: iso,
        bundleInstalled: d.bundleInstalled ?? null,
        bundleInstallTime: d.bundleInstalled ? iso : null,
        channel: d.channel ?? null,
      };
    }),
  );
  const one = rows.length === 1 ? rows[0] : undefined;
  const text = one
    ? `device ${one.id} created (class ${one.deviceClass}${one.homeId !== null ? `, home ${one.homeId}` : ''})`
    : `${rows.length} devices created (ids ${rows[0]?.id} to ${rows.at(-1)?.id})`;
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text } });
  // the creator gets the credentials it has to flash into the device (known here: no unsealing)
  const out: Device[] = new Array(rows.length);
  for (const row of rows) {
    const s = secrets.get(row.apiKeyHash)!;
    out[s.at] = deviceView(deps.sealer, row, s);
  }
  return out;
}
