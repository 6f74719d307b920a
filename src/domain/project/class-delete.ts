// Delete a device class. A class that still has devices is in use: 409 DEVICE_IN_USE with the
// count (their records name it, and a class that vanished under them would make them unreadable
// for firmware and provisioning). Bundles of the class are left alone.
import type { VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { projectKeyFor } from './access.js';
import type { ClassDeps, ClassRef } from './class-create.js';

export async function deleteDeviceClass({ deps, caller, input: { projectId, classId } }: VerbArgs<ClassDeps, ClassRef>): Promise<void> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  if (!(await deps.store.deviceClasses.get(projectId, classId))) throw new AppError('NOT_FOUND', { deviceClass: classId });
  const devices = await deps.store.deviceClasses.deviceCount(projectId, classId);
  if (devices > 0) throw new AppError('DEVICE_IN_USE', { deviceClass: classId, devices });
  await deps.store.deviceClasses.delete(projectId, classId);
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text: `device class ${classId} deleted` } });
}
