// POST .../{moduleId}/keys (docs/webhooks.md): new keys for the module's webhooks, shown in full in this
// answer only. The old key stops signing at once, retries of queued deliveries included: a
// receiver rotating its key wants the new one.
import type { ModulePatch } from '../../ports/store.js';
import type { Body, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from './changed.js';
import { RotateKeysSchema, type Module } from './schemas.js';
import { moduleFor, type ModuleRef } from './access.js';
import { sealedNewKey } from './settings.js';
import { moduleView, type Reveal } from './view.js';
import { parseWith } from '../validate.js';
import type { ModuleDeps } from './create.js';

export async function rotateModuleKeys({
  deps,
  caller,
  input: { projectId, moduleId, body },
}: VerbArgs<ModuleDeps & StoreOf<'logs' | 'modules'>, ModuleRef & Body>): Promise<Module> {
  const row = await moduleFor(deps, caller, projectId, moduleId);
  const which = parseWith(RotateKeysSchema, body ?? {}).webhook ?? 'both';
  const now = deps.clock.now().toISOString();
  const patch: ModulePatch = { modificationTime: now };
  const reveal: Reveal = {};
  if (which !== 'command' && row.eventWebhook) {
    patch.eventWebhook = { ...row.eventWebhook, keySealed: sealedNewKey(deps.sealer).sealed };
    reveal.event = true;
  }
  if (which !== 'event' && row.commandWebhook) {
    patch.commandWebhook = { ...row.commandWebhook, keySealed: sealedNewKey(deps.sealer).sealed };
    reveal.command = true;
  }
  if (!reveal.event && !reveal.command) {
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: 'webhook', message: `module ${moduleId} has no ${which === 'both' ? '' : which + ' '}webhook to rotate` }],
    });
  }
  if (!(await deps.store.modules.update(projectId, moduleId, patch))) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'webhooks', text: `module ${moduleId}: webhook keys rotated (${which})` } });
  return moduleView({ ...row, ...patch }, deps.sealer, reveal);
}
