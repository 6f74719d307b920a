// An event's webhook targets, chosen from the per-project module cache (target-cache.ts); the
// cache is dropped when modules change (domain/module/changed.ts).
import type { ModuleRow } from '../../ports/store.js';
import type { Deps } from '../deps.js';

export { TARGETS_TTL_MS } from './target-cache.js';

/** docs/webhooks.md#subscriptions: `*` subscribes to everything, otherwise the exact type */
export function subscribes(subscriptions: readonly string[], eventType: string): boolean {
  return subscriptions.includes('*') || subscriptions.includes(eventType);
}

/** the modules whose enabled event webhook subscribes to this type; without a promise when the project's modules are cached */
export function eventTargets(deps: Pick<Deps, 'pipeline'>, projectId: number, eventType: string): readonly ModuleRow[] | Promise<readonly ModuleRow[]> {
  const modules = deps.pipeline.projectModules(projectId);
  return Array.isArray(modules) ? targetsOf(modules, eventType) : modules.then((m) => targetsOf(m, eventType));
}

const NO_TARGETS: readonly ModuleRow[] = [];

function targetsOf(modules: readonly ModuleRow[], eventType: string): readonly ModuleRow[] {
  // a project without modules (most events): no new array per event
  if (modules.length === 0) return NO_TARGETS;
  return modules.filter((m) => m.eventWebhook !== null && m.eventDisabled === null && subscribes(m.eventWebhook.subscriptions, eventType));
}
