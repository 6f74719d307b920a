// The command webhook trigger (docs/webhooks.md#command-webhook; docs/webhooks.md): PUT /homes/{homeId}/smartModules/
// {moduleId}/command queues one delivery to the module's command webhook. It resolves once the
// row is committed (the 204 promises the delivery is durable), then wakes the workers.
import * as v from 'valibot';
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { idOrNotFound } from '../id.js';
import { jsonObject, parseWith } from '../validate.js';
import { MODULE_ID_PATTERN } from '../module/schemas.js';
import { ActionSchema, checkProjectAction } from './schemas.js';
import { commandWebhookBody } from '../webhook/payload.js';
import { WEBHOOK_QUEUE } from '../webhook/fan-out.js';

// docs/concepts.md#commands: the action's pattern is the project's (checkProjectAction); parameters an object,
// `{}` when absent (docs/webhooks.md)
export const CommandTriggerSchema = v.object({
  action: ActionSchema,
  parameters: v.optional(jsonObject('parameters must be an object'), {}),
});

export async function triggerCommand({
  deps,
  caller,
  input: { homeIdRaw, moduleId, body },
}: VerbArgs<
  Pick<Deps, 'bus' | 'clock' | 'limits' | 'ids'> & StoreOf<'deliveries' | 'homes' | 'members' | 'modules' | 'projects'>,
  { homeIdRaw: string; moduleId: string } & Body
>): Promise<string> {
  const home = await homeFor(deps, caller, idOrNotFound(homeIdRaw, 'HOME_NOT_FOUND', 'homeId'), ['project key', 'member'], 'commands');
  // docs/webhooks.md: 404 when the module or its command webhook does not exist for the home's project
  const module = MODULE_ID_PATTERN.test(moduleId) ? await deps.store.modules.get(home.projectId, moduleId) : undefined;
  if (!module?.commandWebhook) throw new AppError('MODULE_NOT_FOUND', { moduleId });
  const cmd = parseWith(CommandTriggerSchema, body);
  await checkProjectAction(deps, home.projectId, cmd.action);
  const size = Buffer.byteLength(JSON.stringify(cmd.parameters));
  if (size > deps.limits.eventDataBytes) {
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: 'parameters', message: `parameters are ${size} bytes; the limit is ${deps.limits.eventDataBytes}` }],
    });
  }
  const now = deps.clock.now();
  const origin =
    caller.type === 'user'
      ? { userId: caller.userId }
      : caller.type === 'project key'
        ? { projectKeyId: caller.keyId, projectKeyName: caller.keyName }
        : undefined;
  const payload = commandWebhookBody({ action: cmd.action, parameters: cmd.parameters, timestamp: now.toISOString(), homeId: home.id, origin });
  const id = deps.ids.delivery(now);
  await deps.store.deliveries.insertMany([
    {
      id,
      projectId: home.projectId,
      moduleId,
      kind: 'command',
      eventId: null,
      eventType: cmd.action,
      payload: JSON.stringify(payload),
      creationTime: now.toISOString(),
    },
  ]);
  await deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
  return id;
}
