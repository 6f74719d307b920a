// getDeviceConfigurationSchemas (docs/api.md#device-operations, docs/concepts.md#firmware-bundles): the config schemas of the components of the
// device's installed bundle; [] when nothing is installed or the bundle has since been deleted.
import * as v from 'valibot';
import type { DeviceRef, StoreOf, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import type { ConfigSchemaSchema } from './schemas.js';

export type ConfigSchema = v.InferOutput<typeof ConfigSchemaSchema>;

export async function getDeviceConfigurationSchemas({
  deps,
  caller,
  input: { deviceId },
}: VerbArgs<StoreOf<'bundles' | 'devices' | 'members'>, DeviceRef>): Promise<ConfigSchema[]> {
  const d = await deviceFor(deps, caller, deviceId, ['project key', 'member', 'self']);
  if (!d.bundleInstalled) return [];
  const bundle = await deps.store.bundles.get(d.bundleInstalled);
  if (!bundle || bundle.projectId !== d.projectId) return [];
  return bundle.components.map((c) => ({
    componentName: c.componentName,
    componentVersionName: c.componentVersionName,
    deviceConfigSchema: c.deviceConfigSchema ?? [],
  }));
}
