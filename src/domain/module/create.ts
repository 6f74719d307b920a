// Create a webhooks module (docs/webhooks.md). Each webhook gets a generated key, shown in full in this
// answer only.
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import type { ModuleRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from './changed.js';
import { ModuleCreateSchema, type Module } from './schemas.js';
import { requireModuleManager } from './access.js';
import type { WebhookChecks } from './checks.js';
import {
  checkEventWebhook,
  commandWebhookRow,
  DEFAULT_TSDB_EVENT_TYPES,
  eventWebhookRow,
  MAX_MODULES_PER_PROJECT,
  refuseWebhooksOnTsdb,
  sealedNewKey,
} from './settings.js';
import { moduleView } from './view.js';

/** all but the Store, of which each verb names the repositories it uses (StoreOf) */
export type ModuleDeps = Pick<Deps, 'bus' | 'clock' | 'sealer' | 'pipeline'>;

export async function createModule({
  deps,
  caller,
  input: { projectId, body },
}: VerbArgs<ModuleDeps & StoreOf<'logs' | 'modules'> & { checks: WebhookChecks }, ProjectRef & Body>): Promise<Module> {
  const checks = deps.checks;
  requireModuleManager(caller, projectId);
  const input = parseWith(ModuleCreateSchema, body);
  const tsdb = input.moduleType === 'tsdb';
  // docs/timeseries.md#the-module: a tsdb module stores points and calls no webhook
  if (tsdb) refuseWebhooksOnTsdb(input);
  else if (input.tsdb) throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'tsdb', message: 'tsdb settings belong to a module of type "tsdb"' }] });
  if (input.eventWebhook) await checkEventWebhook(checks, input.eventWebhook);
  if (input.commandWebhook) await checks.checkUrl(input.commandWebhook.url, 'commandWebhook.url');
  if ((await deps.store.modules.list(projectId)).length >= MAX_MODULES_PER_PROJECT) {
    throw new AppError('LIMIT_EXCEEDED', { limit: MAX_MODULES_PER_PROJECT, message: `a project has at most ${MAX_MODULES_PER_PROJECT} modules` });
  }
  const now = deps.clock.now().toISOString();
  const row: ModuleRow = {
    projectId,
    id: input.id,
    moduleType: tsdb ? 'tsdb' : 'webhooks',
    description: input.description ?? null,
    tsdb: tsdb ? { eventTypes: input.tsdb?.eventTypes ?? [...DEFAULT_TSDB_EVENT_TYPES] } : null,
    eventWebhook: input.eventWebhook ? eventWebhookRow(input.eventWebhook, sealedNewKey(deps.sealer).sealed) : null,
    commandWebhook: input.commandWebhook ? commandWebhookRow(input.commandWebhook.url, sealedNewKey(deps.sealer).sealed) : null,
    eventDisabled: null,
    commandDisabled: null,
    creationTime: now,
    modificationTime: now,
  };
  if (!(await deps.store.modules.create(row))) throw new AppError('ALREADY_EXISTS', { moduleId: input.id });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'webhooks', text: `module ${row.id} created` } });
  return moduleView(row, deps.sealer, { event: true, command: true });
}
