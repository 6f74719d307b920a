// An event's webhook targets, chosen from the per-project module cache (target-cache.ts); the
// cache is dropped when modules change (domain/module/changed.ts).
import type { ModuleRow } from '../../ports/store.js';
import type { Deps } from '../deps.js';

export { TARGETS_TTL_MS } from './target-cache.js';

/** docs/webhooks.md#subscriptions: `*` subscribes to everything, otherwise the exact type */
export function subscribes(subscriptions: readonly string[], eventType: string): boolean {
  return subscriptions.includes('*') || subscriptions.includes(eventType);
}

/** the modules whose enabled event webhook subscribes to this type */
export async function eventTargets(deps: Pick<Deps, 'pipeline'>, projectId: number, eventType: string): Promise<ModuleRow[]> {
  const modules = await deps.pipeline.projectModules(projectId);
  return modules.filter((m) => m.eventWebhook !== null && m.eventDisabled === null && subscribes(m.eventWebhook.subscriptions, eventType));
}
