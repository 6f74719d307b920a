// Who reaches a bundle's files (docs/firmware.md#files): a project key of its project with scope
// `devices` (upload and download), or a device of its project whose class the bundle is for
// (download only). A device of another class, or of another project, is told the bundle does not
// exist (404 BUNDLE_NOT_FOUND), as for GET /bundles/{id}: it learns nothing about bundles it may
// not run. The channel is not checked: a rollout may bring a bundle to any channel it targets.
import type { StoreOf } from '../deps.js';
import type { BundleRow, DeviceRow } from '../../ports/store.js';
import type { Caller } from '../caller.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';

export async function fileBundleFor(
  deps: StoreOf<'bundles' | 'devices'>,
  caller: Caller,
  bundleId: string,
  upload: boolean,
): Promise<{ bundle: BundleRow; device?: DeviceRow }> {
  requireCaller(caller);
  const bundle = await deps.store.bundles.get(bundleId);
  if (!bundle || bundle.projectId !== caller.projectId) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
  if (caller.type === 'device') {
    const device = await deps.store.devices.get(caller.deviceId);
    if (!device) throw new AppError('INVALID_TOKEN');
    if (device.deviceClass !== bundle.deviceClass) throw new AppError('BUNDLE_NOT_FOUND', { bundleId });
    if (upload) throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices' });
    return { bundle, device };
  }
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices' });
  requireProjectKey(caller, bundle.projectId, 'devices');
  return { bundle };
}

/** the component named, or 404 NOT_FOUND naming it */
export function componentOf(bundle: BundleRow, componentName: string) {
  const c = bundle.components.find((x) => x.componentName === componentName);
  if (!c)
    throw new AppError('NOT_FOUND', { bundleId: bundle.id, componentName, message: `bundle ${bundle.id} has no component ${JSON.stringify(componentName)}` });
  return c;
}

/** where a component's file is downloaded (docs/firmware.md#files) */
export const fileUrl = (baseUrl: string, bundleId: string, componentName: string) =>
  `${baseUrl}/bundles/${encodeURIComponent(bundleId)}/components/${encodeURIComponent(componentName)}/file`;
