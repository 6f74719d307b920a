// Read device classes (docs/concepts.md). Project keys with the `devices` scope and users of the
// project may read them: a user with canCreateDevices must be able to pick one.
import type { ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import type { Caller } from '../caller.js';
import { hasScope } from '../auth/access.js';
import { AppError } from '../errors.js';
import { ownProject } from './access.js';
import type { DeviceClass } from './schemas.js';
import { deviceClassView } from './view.js';
import type { ClassRef } from './class-create.js';

type D = StoreOf<'deviceClasses' | 'projects'>;

async function canRead(deps: StoreOf<'projects'>, caller: Caller, projectId: number): Promise<void> {
  await ownProject(deps, caller, projectId);
  if (caller.type === 'user' || hasScope(caller, 'devices')) return;
  throw new AppError('PERMISSION_DENIED', { required: 'project key with scope devices, or a user of the project' });
}

export async function listDeviceClasses({ deps, caller, input: { projectId } }: VerbArgs<D, ProjectRef>): Promise<DeviceClass[]> {
  await canRead(deps, caller, projectId);
  return (await deps.store.deviceClasses.list(projectId)).map(deviceClassView);
}

export async function getDeviceClass({ deps, caller, input: { projectId, classId } }: VerbArgs<D, ClassRef>): Promise<DeviceClass> {
  await canRead(deps, caller, projectId);
  const c = await deps.store.deviceClasses.get(projectId, classId);
  if (!c) throw new AppError('NOT_FOUND', { deviceClass: classId });
  return deviceClassView(c);
}
