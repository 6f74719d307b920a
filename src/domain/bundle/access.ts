// Who may see a bundle: a project key of its project (`devices`), or a device of its project whose
// class it is for (docs/concepts.md: "a device sees its class and channel"). Anyone else: not found.
import type { StoreOf } from '../deps.js';
import type { BundleRow, DeviceRow } from '../../ports/store.js';
import type { Caller } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';

/** the calling device's record, for its class and channel */
export async function callingDevice(deps: StoreOf<'devices'>, caller: Extract<Caller, { type: 'device' }>): Promise<DeviceRow> {
  const d = await deps.store.devices.get(caller.deviceId);
  if (!d) throw new AppError('INVALID_TOKEN');
  return d;
}

/** a device sees bundles of its class on its channel (no channel: bundles without one) */
export const fitsDevice = (b: BundleRow, d: DeviceRow): boolean => b.deviceClass === d.deviceClass && (b.channel ?? null) === (d.channel ?? null);

export async function bundleFor(deps: StoreOf<'bundles' | 'devices'>, caller: Caller, bundleId: string, manage: boolean): Promise<BundleRow> {
  requireCaller(caller);
  const b = await deps.store.bundles.get(bundleId);
  if (!b || b.projectId !== caller.projectId) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
  if (caller.type === 'device' && !manage) {
    if (!fitsDevice(b, await callingDevice(deps, caller))) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
    return b;
  }
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices' });
  requireProjectKey(caller, b.projectId, 'devices');
  return b;
}
