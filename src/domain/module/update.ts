// PATCH a module (docs/webhooks.md): fields merge one by one; `null` removes a webhook; a webhook added
// here gets a key, shown in this answer only. A changed URL or `enabled: true` turns a webhook the
// service disabled (410) back on; `enabled: false` turns it off.
import type { ModulePatch, ModuleRow, WebhookDisabled } from '../../ports/store.js';
import type { Body, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from './changed.js';
import { ModulePatchSchema, type Module, type ModulePatchInput } from './schemas.js';
import { moduleFor, type ModuleRef } from './access.js';
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

/** one update in progress: the module as it was, the patch being built, and which new keys the answer shows */
interface Patching {
  deps: ModuleDeps;
  checks: WebhookChecks;
  row: ModuleRow;
  patch: ModulePatch;
  reveal: Reveal;
  now: string;
}

/** the URL the webhook has after the patch (one is required to add a webhook), and whether it changed */
function urlOf(old: { url: string } | null, given: string | undefined, which: keyof Reveal) {
  const url = given ?? old?.url;
  if (!url) throw missingUrl(`${which}Webhook`);
  return { url, urlChanged: url !== old?.url };
}

/** the webhook's key; one that had none gets a new key, shown in this answer only */
function keyOf(p: Patching, old: { keySealed: string } | null, which: keyof Reveal): string {
  if (old?.keySealed) return old.keySealed;
  p.reveal[which] = true;
  return sealedNewKey(p.deps.sealer).sealed;
}

async function patchEvent(p: Patching, ev: NonNullable<ModulePatchInput['eventWebhook']>) {
  const old = p.row.eventWebhook;
  const { url, urlChanged } = urlOf(old, ev.url, 'event');
  const merged = {
    url,
    subscriptions: ev.subscriptions ?? old?.subscriptions,
    headers: ev.headers !== undefined ? ev.headers : (old?.headers ?? null),
    body: ev.body !== undefined ? ev.body : (old?.body ?? null),
  };
  // the URL is vetted again only when it changes: it passed when it was saved
  await checkEventWebhook(urlChanged ? p.checks : { ...p.checks, checkUrl: async () => {} }, merged);
  p.patch.eventWebhook = eventWebhookRow(merged, keyOf(p, old, 'event'));
  p.patch.eventDisabled = nextDisabled(p.row.eventDisabled, ev.enabled, urlChanged && !!old, p.now);
}

async function patchCommand(p: Patching, cmd: NonNullable<ModulePatchInput['commandWebhook']>) {
  const old = p.row.commandWebhook;
  const { url, urlChanged } = urlOf(old, cmd.url, 'command');
  if (urlChanged) await p.checks.checkUrl(url, 'commandWebhook.url');
  p.patch.commandWebhook = commandWebhookRow(url, keyOf(p, old, 'command'));
  p.patch.commandDisabled = nextDisabled(p.row.commandDisabled, cmd.enabled, urlChanged && !!old, p.now);
}

export async function updateModule({
  deps,
  caller,
  input: { projectId, moduleId, body },
}: VerbArgs<ModuleDeps & StoreOf<'logs' | 'modules'> & { checks: WebhookChecks }, ModuleRef & Body>): Promise<Module> {
  const row = await moduleFor(deps, caller, projectId, moduleId);
  const input = parseWith(ModulePatchSchema, body);
  if (row.moduleType === 'tsdb') refuseWebhooksOnTsdb(input);
  const now = deps.clock.now().toISOString();
  const patch: ModulePatch = { modificationTime: now };
  const reveal: Reveal = {};
  const patching: Patching = { deps, checks: deps.checks, row, patch, reveal, now };
  if (input.description !== undefined) patch.description = input.description;
  if (input.eventWebhook === null) Object.assign(patch, { eventWebhook: null, eventDisabled: null });
  else if (input.eventWebhook) await patchEvent(patching, input.eventWebhook);
  if (input.commandWebhook === null) Object.assign(patch, { commandWebhook: null, commandDisabled: null });
  else if (input.commandWebhook) await patchCommand(patching, input.commandWebhook);
  if (!(await deps.store.modules.update(projectId, moduleId, patch))) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'webhooks', text: `module ${moduleId} updated` } });
  return moduleView({ ...row, ...patch }, deps.sealer, reveal);
}
