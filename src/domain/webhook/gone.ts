// docs/webhooks.md#retries: a receiver that answers 410 Gone has gone for good, so the module's
// webhook of that kind is turned off (with the time and the reason the module shows) until a PATCH
// with `enabled: true` turns it on again; every node's cached targets drop it, and the project's
// general log says what happened and how to undo it.
import type { DeliveryKind } from '../../ports/queue.js';
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import { writeLog } from '../log/write.js';
import { modulesChanged } from '../module/changed.js';

/** true when a webhook was turned off; data-source and report webhooks have nothing to turn off */
export async function disableGoneWebhook({
  deps,
  input: { projectId, moduleId, kind, reason },
}: SystemArgs<
  Pick<Deps, 'clock' | 'pipeline' | 'bus'> & StoreOf<'modules' | 'logs'>,
  { projectId: number; moduleId: string; kind: DeliveryKind; reason: string }
>): Promise<boolean> {
  if (kind !== 'event' && kind !== 'command') return false;
  const time = deps.clock.now().toISOString();
  const disabled = { time, reason };
  await deps.store.modules.update(projectId, moduleId, {
    ...(kind === 'event' ? { eventDisabled: disabled } : { commandDisabled: disabled }),
    modificationTime: time,
  });
  await modulesChanged({ deps, input: { projectId } });
  await writeLog({
    deps,
    input: {
      projectId,
      level: 'warn',
      source: 'webhooks',
      text: `${kind} webhook of module ${moduleId} disabled: the receiver answered 410 Gone; PATCH it with enabled: true to turn it on again`,
    },
  });
  return true;
}
