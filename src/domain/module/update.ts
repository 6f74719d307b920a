// PATCH a module (docs/webhooks.md): fields merge one by one; `null` removes a webhook; a webhook added
// here gets a key, shown in this answer only. A changed URL or `enabled: true` turns a webhook the
// service disabled (410) back on; `enabled: false` turns it off.
import type { ModulePatch, ModuleRow, WebhookDisabled } from '../../ports/store.js';
import type { Body, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from './changed.js';
import { ModulePatchSchema, type Module, type ModulePatchInput } from './schemas.js';
import { loadModule, requireModuleManager } from './access.js';
import type { WebhookChecks } from './checks.js';
import { checkEventWebhook, commandWebhookRow, eventWebhookRow, refuseWebhooksOnTsdb, sealedNewKey } from './settings.js';
import { moduleView, type Reveal } from './view.js';
import { parseWith } from '../validate.js';
import type { ModuleDeps } from './create.js';

const missingUrl = (path: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path: `${path}.url`, message: 'url is required to add a webhook' }] });

function nextDisabled(current: WebhookDisabled | null, enabled: boolean | undefined, urlChanged: boolean, now: string): WebhookDisabled | null {
  if (enabled === false) return current ?? { time: now, reason: 'disabled by a client' };
  if (enabled === true || urlChanged) return null;
  return current;
}

async function patchEvent(
  deps: ModuleDeps,
  checks: WebhookChecks,
  row: ModuleRow,
  ev: NonNullable<ModulePatchInput['eventWebhook']>,
  patch: ModulePatch,
  reveal: Reveal,
  now: string,
) {
  const old = row.eventWebhook;
  const url = ev.url ?? old?.url;
  if (!url) throw missingUrl('eventWebhook');
  const merged = {
    url,
    subscriptions: ev.subscriptions ?? old?.subscriptions,
    headers: ev.headers !== undefined ? ev.headers : (old?.headers ?? null),
    body: ev.body !== undefined ? ev.body : (old?.body ?? null),
  };
  const urlChanged = url !== old?.url;
  // the URL is vetted again only when it changes: it passed when it was saved
  await checkEventWebhook(urlChanged ? checks : { ...checks, checkUrl: async () => {} }, merged);
  let keySealed = old?.keySealed;
  if (!keySealed) {
    keySealed = sealedNewKey(deps.sealer).sealed;
    reveal.event = true;
  }
  patch.eventWebhook = eventWebhookRow(merged, keySealed);
  patch.eventDisabled = nextDisabled(row.eventDisabled, ev.enabled, urlChanged && !!old, now);
}

async function patchCommand(
  deps: ModuleDeps,
  checks: WebhookChecks,
  row: ModuleRow,
  cmd: NonNullable<ModulePatchInput['commandWebhook']>,
  patch: ModulePatch,
  reveal: Reveal,
  now: string,
) {
  const old = row.commandWebhook;
  const url = cmd.url ?? old?.url;
  if (!url) throw missingUrl('commandWebhook');
  const urlChanged = url !== old?.url;
  if (urlChanged) await checks.checkUrl(url, 'commandWebhook.url');
  let keySealed = old?.keySealed;
  if (!keySealed) {
    keySealed = sealedNewKey(deps.sealer).sealed;
    reveal.command = true;
  }
  patch.commandWebhook = commandWebhookRow(url, keySealed);
  patch.commandDisabled = nextDisabled(row.commandDisabled, cmd.enabled, urlChanged && !!old, now);
}

export async function updateModule({
  deps,
  caller,
  input: { projectId, moduleId, body },
}: VerbArgs<ModuleDeps & StoreOf<'logs' | 'modules'> & { checks: WebhookChecks }, { projectId: number; moduleId: string } & Body>): Promise<Module> {
  const checks = deps.checks;
  requireModuleManager(caller, projectId);
  const row = await loadModule(deps, projectId, moduleId);
  const input = parseWith(ModulePatchSchema, body);
  if (row.moduleType === 'tsdb') refuseWebhooksOnTsdb(input);
  const now = deps.clock.now().toISOString();
  const patch: ModulePatch = { modificationTime: now };
  const reveal: Reveal = {};
  if (input.description !== undefined) patch.description = input.description;
  if (input.eventWebhook === null) Object.assign(patch, { eventWebhook: null, eventDisabled: null });
  else if (input.eventWebhook) await patchEvent(deps, checks, row, input.eventWebhook, patch, reveal, now);
  if (input.commandWebhook === null) Object.assign(patch, { commandWebhook: null, commandDisabled: null });
  else if (input.commandWebhook) await patchCommand(deps, checks, row, input.commandWebhook, patch, reveal, now);
  if (!(await deps.store.modules.update(projectId, moduleId, patch))) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'webhooks', text: `module ${moduleId} updated` } });
  return moduleView({ ...row, ...patch }, deps.sealer, reveal);
}
