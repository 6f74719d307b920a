// Create a bundle (docs/concepts.md): a project key with `devices`, in its own project, for one of its
// device classes. Bundle ids are unique across the service (the id alone names a bundle in
// recordFirmwareInstallation), so an id taken in another project is ALREADY_EXISTS too.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { listProjectId } from '../project/access.js';
import { CreateBundleBodySchema, type Bundle } from './schemas.js';
import { bundleView } from './view.js';

export async function createBundle({
  deps,
  caller,
  input: { body },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'bundles' | 'deviceClasses' | 'logs'>, Body>): Promise<Bundle> {
  requireCaller(caller);
  const b = parseInput(CreateBundleBodySchema, body);
  const projectId = listProjectId(caller, b.projectId);
  requireProjectKey(caller, projectId, 'devices');
  if (!(await deps.store.deviceClasses.get(projectId, b.deviceClass))) throw new AppError('UNKNOWN_DEVICE_CLASS', { deviceClass: b.deviceClass });
  if (await deps.store.bundles.get(b.id)) throw new AppError('ALREADY_EXISTS', { bundleId: b.id });
  const row = {
    id: b.id,
    projectId,
    name: b.name ?? null,
    description: b.description ?? null,
    deviceClass: b.deviceClass,
    channel: b.channel ?? null,
    components: b.components,
    creationTime: deps.clock.now().toISOString(),
  };
  await deps.store.bundles.create(row);
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text: `bundle ${b.id} created for class ${b.deviceClass}` } });
  return bundleView(row);
}
