// Create a device class (docs/concepts.md): id per the docs/concepts.md#firmware-bundles bundleId pattern, unique per project.
// Project keys with the `devices` scope manage classes (a provisioning backend needs no admin).
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { projectKeyFor } from './access.js';
import { CreateDeviceClassBodySchema, type DeviceClass } from './schemas.js';
import { deviceClassView } from './view.js';

/** what the verbs that change device classes use */
export type ClassDeps = Pick<Deps, 'clock'> & StoreOf<'deviceClasses' | 'logs' | 'projects'>;
/** the device class a verb is about */
export type ClassRef = ProjectRef & { classId: string };

export async function createDeviceClass({ deps, caller, input: { projectId, body } }: VerbArgs<ClassDeps, ProjectRef & Body>): Promise<DeviceClass> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  const b = parseInput(CreateDeviceClassBodySchema, body);
  if (await deps.store.deviceClasses.get(projectId, b.id)) throw new AppError('ALREADY_EXISTS', { deviceClass: b.id });
  const row = {
    projectId,
    id: b.id,
    name: b.name ?? null,
    description: b.description ?? null,
    certificateRequired: b.certificateRequired ?? false,
    creationTime: deps.clock.now().toISOString(),
  };
  await deps.store.deviceClasses.create(row);
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text: `device class ${b.id} created` } });
  return deviceClassView(row);
}
