// Create a home (docs/concepts.md). A user's home is in its own project and the user becomes its owner;
// a project key (scope `homes`) must name its own project and the home starts with no members.
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { requireCaller, requireProjectKey } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { listProjectId } from '../project/access.js';
import { CreateHomeBodySchema, type Home } from './schemas.js';
import { homeView } from './view.js';

export async function createHome({ deps, caller, input: { body } }: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'transaction'>, Body>): Promise<Home> {
  requireCaller(caller);
  const b = parseInput(CreateHomeBodySchema, body);
  if (caller.type === 'project key' && b.projectId === undefined) throw new AppError('MISSING_PARAMETERS', { fields: ['projectId'] });
  const projectId = listProjectId(caller, b.projectId);
  if (caller.type === 'project key') requireProjectKey(caller, projectId, 'homes');
  else if (caller.type !== 'user') throw new AppError('PERMISSION_DENIED', { required: 'a user or a project key with scope homes' });
  const now = deps.clock.now().toISOString();
  const home = await deps.store.transaction(async (store) => {
    const h = await store.homes.create({ projectId, name: b.name, creationTime: now });
    if (caller.type === 'user') await store.members.upsert({ homeId: h.id, userId: caller.userId, role: 'owner', creationTime: now });
    return h;
  });
  return homeView(home);
}
