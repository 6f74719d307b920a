// Home members (docs/concepts.md). Members may list them; owners and project keys add, re-role and
// remove them; any member may leave. Only users of the home's project can be added: anyone else
// is reported as an unknown user.
import type { Deps } from '../deps.js';
import type { Caller } from '../auth/caller.js';
import { homeFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { AddMemberBodySchema, type Member } from './schemas.js';
import { memberView } from './view.js';

type D = Pick<Deps, 'store' | 'clock'>;

export async function listMembers({ deps, caller, homeId }: { deps: D; caller: Caller; homeId: number }): Promise<Member[]> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'member']);
  return (await deps.store.members.list(h.id)).map(memberView);
}

/** adds a member, or changes the role of one already there */
export async function addMember({ deps, caller, homeId, input }: { deps: D; caller: Caller; homeId: number; input: unknown }): Promise<Member> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'owner']);
  const b = parseInput(AddMemberBodySchema, input);
  const u = await deps.store.users.get(b.userId);
  if (!u || u.projectId !== h.projectId) throw new AppError('USER_NOT_FOUND', { userId: b.userId });
  const existing = await deps.store.members.get(h.id, u.id);
  const row = { homeId: h.id, userId: u.id, role: b.role, creationTime: existing?.creationTime ?? deps.clock.now().toISOString() };
  await deps.store.members.upsert(row);
  return memberView(row);
}

export async function removeMember({ deps, caller, homeId, userId }: { deps: D; caller: Caller; homeId: number; userId: number }): Promise<void> {
  const leaving = caller.type === 'user' && caller.userId === userId;
  const h = await homeFor(deps, caller, homeId, leaving ? ['project key', 'member'] : ['project key', 'owner']);
  if (!(await deps.store.members.delete(h.id, userId))) throw new AppError('USER_NOT_FOUND', { userId });
}
