// Rename a home (owner or project key). id, projectId and creationTime are read-only.
import type { Body, HomeRef, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { checkReadOnly, parseInput } from '../validate.js';
import { PatchHomeBodySchema, type Home } from './schemas.js';
import { homeView } from './view.js';

export async function updateHome({ deps, caller, input: { homeId, body } }: VerbArgs<StoreOf<'homes' | 'members'>, HomeRef & Body>): Promise<Home> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'owner']);
  const b = parseInput(PatchHomeBodySchema, body);
  checkReadOnly(b, homeView(h), ['id', 'projectId', 'creationTime']);
  if (b.name !== undefined) await deps.store.homes.update(h.id, { name: b.name });
  return homeView({ ...h, name: b.name ?? h.name });
}
