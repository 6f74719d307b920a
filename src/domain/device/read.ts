// getDeviceInfo and getAllDevices (docs/api.md#device-operations, docs/concepts.md#devices). A project key (`devices`) sees its
// project's devices; a user sees the devices of its homes only; a device sees itself (one) and
// may not list. apiKey/claimCode only for privileged readers (view.ts).
import type { DeviceRef, Deps, StoreOf, VerbArgs } from '../deps.js';
import type { Paged } from '../../ports/store.js';
import { deviceFor, requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { after, type Maybe } from '../maybe.js';
import { listProjectId, type ListInput } from '../project/access.js';
import type { Device, DeviceListFilter } from './schemas.js';
import { deviceView, revealsSecrets } from './view.js';

type D = Pick<Deps, 'sealer'> & StoreOf<'devices' | 'members'>;

const READERS = ['project key', 'member', 'self'] as const;

/** without a promise when the read cache holds what deviceFor needs (the commonest read) */
export function getDevice({ deps, caller, input: { deviceId } }: VerbArgs<D, DeviceRef>): Maybe<Device> {
  return after(deviceFor(deps, caller, deviceId, READERS), (d) => deviceView(deps.sealer, d, revealsSecrets(caller)));
}

export async function listDevices({
  deps,
  caller,
  input: { filter, page, total },
}: VerbArgs<
  D,
  /** `total: false`: the page without the count of all that match (total null) */
  ListInput<DeviceListFilter> & { total?: boolean }
>): Promise<Omit<Paged<Device>, 'total'> & { total: number | null }> {
  requireCaller(caller);
  const projectId = listProjectId(caller, filter.projectId);
  let homeIds: number[] | undefined;
  if (caller.type === 'project key') requireProjectKey(caller, projectId, 'devices');
  else if (caller.type === 'user') homeIds = await deps.store.members.homesOf(caller.userId);
  else throw new AppError('PERMISSION_DENIED', { required: 'a project key or a user' });
  const { homeId, deviceClass, tag, isConnected, search, inHome, afterId } = filter;
  // a user's homeId filter is intersected with its homes: another home gives an empty page
  const f = { projectId, homeIds, homeId, deviceClass, tag, isConnected, search: search || undefined, inHome, afterId };
  const r = total === false ? { items: await deps.store.devices.listPage(f, page), total: null } : await deps.store.devices.list(f, page);
  const reveal = revealsSecrets(caller);
  return { total: r.total, items: r.items.map((d) => deviceView(deps.sealer, d, reveal)) };
}
