// Change a device class (docs/tls.md#client-certificates): whether its devices must sign in with a client
// certificate. Project keys with the `devices` scope. Connections already open stay.
import type { Body, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { projectKeyFor } from './access.js';
import type { ClassDeps, ClassRef } from './class-create.js';
import { UpdateDeviceClassBodySchema, type DeviceClass } from './schemas.js';
import { deviceClassView } from './view.js';

export async function updateDeviceClass({ deps, caller, input: { projectId, classId, body } }: VerbArgs<ClassDeps, ClassRef & Body>): Promise<DeviceClass> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  const b = parseInput(UpdateDeviceClassBodySchema, body);
  if (!(await deps.store.deviceClasses.setCertificateRequired(projectId, classId, b.certificateRequired)))
    throw new AppError('NOT_FOUND', { deviceClass: classId });
  const row = (await deps.store.deviceClasses.get(projectId, classId))!;
  const what = b.certificateRequired ? 'requires client certificates' : 'accepts device keys again';
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text: `device class ${classId} ${what}` } });
  return deviceClassView(row);
}
