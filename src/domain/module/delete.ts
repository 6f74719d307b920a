// DELETE a module (docs/webhooks.md), with its delivery log and whatever was still queued for it: a
// deleted module's webhooks are never called again.
import type { StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from './changed.js';
import { requireModuleManager, type ModuleRef } from './access.js';
import { MODULE_ID_PATTERN } from './schemas.js';
import type { ModuleDeps } from './create.js';

export async function deleteModule({
  deps,
  caller,
  input: { projectId, moduleId },
}: VerbArgs<ModuleDeps & StoreOf<'logs' | 'transaction'>, ModuleRef>): Promise<void> {
  requireModuleManager(caller, projectId);
  const deleted =
    MODULE_ID_PATTERN.test(moduleId) &&
    (await deps.store.transaction(async (tx) => {
      if (!(await tx.modules.delete(projectId, moduleId))) return false;
      await tx.deliveries.deleteForModule(projectId, moduleId);
      // docs/timeseries.md#the-module: a tsdb module's series go with it
      await tx.tsdb.deleteModule(projectId, moduleId);
      return true;
    }));
  if (!deleted) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'webhooks', text: `module ${moduleId} deleted` } });
}
