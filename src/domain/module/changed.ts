// A project's modules changed: every node drops its cached webhook targets for the project
// (the event pipeline's target cache, domain/webhook/target-cache.ts), here at once and on the
// other nodes as the bus brings the message.
import type { Deps, ProjectRef, SystemArgs } from '../deps.js';

/** after a change to a project's modules: here at once, elsewhere as the bus brings it */
export async function modulesChanged({ deps, input: { projectId } }: SystemArgs<Pick<Deps, 'pipeline' | 'bus'>, ProjectRef>): Promise<void> {
  deps.pipeline.invalidateTargets(projectId);
  await deps.bus.publish('modules', { projectId });
}

/** every node: drop the cached targets of a project whose modules another node changed */
export function followModuleChanges({ deps }: SystemArgs<Pick<Deps, 'pipeline' | 'bus'>>): () => void {
  return deps.bus.subscribe('modules', (m) => deps.pipeline.invalidateTargets(m.projectId));
}
