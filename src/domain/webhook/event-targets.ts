// The verbs around the webhook target cache (target-cache.ts): dropping a project's entry when its
// modules change, here and on every other node, and choosing an event's targets from it.
import type { ModuleRow } from '../../ports/store.js';
import type { Deps } from '../deps.js';

export { TARGETS_TTL_MS } from './target-cache.js';

/** after a change to a project's modules: here at once, elsewhere as the bus brings it */
export async function modulesChanged({ deps, input: { projectId } }: { deps: Pick<Deps, 'pipeline' | 'bus'>; input: { projectId: number } }): Promise<void> {
  deps.pipeline.invalidateTargets(projectId);
  await deps.bus.publish('modules', { projectId });
}

/** every node: drop the cached targets of a project whose modules another node changed */
export function followModuleChanges({ deps }: { deps: Pick<Deps, 'pipeline' | 'bus'> }): () => void {
  return deps.bus.subscribe('modules', (m) => deps.pipeline.invalidateTargets(m.projectId));
}

/** docs/webhooks.md#subscriptions: `*` subscribes to everything, otherwise the exact type */
export function subscribes(subscriptions: readonly string[], eventType: string): boolean {
  return subscriptions.includes('*') || subscriptions.includes(eventType);
}

/** the modules whose enabled event webhook subscribes to this type */
export async function eventTargets(deps: Pick<Deps, 'pipeline'>, projectId: number, eventType: string): Promise<ModuleRow[]> {
  const modules = await deps.pipeline.projectModules(projectId);
  return modules.filter((m) => m.eventWebhook !== null && m.eventDisabled === null && subscribes(m.eventWebhook.subscriptions, eventType));
}
