// First start on an empty store: project 1, device class `default`, and an admin project key
// whose plaintext is returned once (docs/concepts.md) for main.ts to print and write to the data dir.
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import { hashToken } from '../auth/tokens.js';

export async function bootstrapIfEmpty({
  deps,
}: SystemArgs<Pick<Deps, 'clock' | 'random'> & StoreOf<'transaction'>>): Promise<{ projectId: number; adminKey: string } | undefined> {
  return deps.store.transaction(async (store) => {
    // cluster nodes started together: the first creates the project, the others find it
    await store.projects.lockFirstStart();
    if ((await store.projects.count()) > 0) return undefined;
    const now = deps.clock.now().toISOString();
    const project = await store.projects.create({ name: 'Default project', creationTime: now });
    await store.deviceClasses.create({ projectId: project.id, id: 'default', name: 'Default', description: null, creationTime: now });
    const adminKey = deps.random.token('pk.');
    await store.apiKeys.create({
      id: deps.random.id(),
      projectId: project.id,
      name: 'admin',
      scopes: ['admin'],
      keyHash: hashToken(adminKey),
      creationTime: now,
    });
    await store.logs.insert({
      projectId: project.id,
      caller: null,
      level: 1,
      source: 'admin',
      text: 'project created with an admin key at first start',
      timestamp: now,
    });
    return { projectId: project.id, adminKey };
  });
}
