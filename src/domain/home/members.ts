// Home members (docs/concepts.md). Members may list them; owners and project keys add, re-role and
// remove them; any member may leave. Only users of the home's project can be added, by id or by
// email: anyone else is reported as an unknown user. A home keeps at least one owner while it has
// members: demoting or removing its last owner is 403 LAST_OWNER (promote another member first).
import type { Body, Deps, HomeRef, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import type { HomeRole, MemberRow, Store, UserRow } from '../../ports/store.js';
import { AddMemberBodySchema, PatchMemberBodySchema, type Member } from './schemas.js';
import { memberView } from './view.js';

type D = Pick<Deps, 'clock'> & StoreOf<'homes' | 'members' | 'transaction' | 'users'>;

/** the member's user, for its name and email (a deleted user's memberships go with it) */
async function withUser(store: Pick<Store, 'users'>, m: MemberRow): Promise<Member> {
  const u = store.users.peek?.(m.userId) ?? (await store.users.get(m.userId));
  return memberView(m, u ?? { name: '', email: '', verified: false });
}

export async function listMembers({
  deps,
  caller,
  input: { homeId },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'homes' | 'members' | 'users'>, HomeRef>): Promise<Member[]> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'member']);
  return Promise.all((await deps.store.members.list(h.id)).map((m) => withUser(deps.store, m)));
}

/**
 * Sets a member's role in one transaction with the check that an owner remains. `keepsOwner`:
 * the rows as they will be; refused when members remain and none of them is an owner.
 */
async function changeMembers(
  store: Pick<Store, 'transaction'>,
  homeId: number,
  change: (tx: Store, members: MemberRow[]) => Promise<MemberRow[]>,
): Promise<void> {
  await store.transaction(async (tx) => {
    const before = await tx.members.list(homeId);
    const after = await change(tx, before);
    if (before.some((m) => m.role === 'owner') && after.length > 0 && !after.some((m) => m.role === 'owner')) {
      throw new AppError('LAST_OWNER', { homeId, message: 'a home keeps at least one owner: make another member owner first' });
    }
  });
}

async function userOfProject(store: Pick<Store, 'users'>, projectId: number, b: { userId?: number; email?: string }): Promise<UserRow> {
  const u = b.userId !== undefined ? await store.users.get(b.userId) : await store.users.getByEmail(projectId, b.email!);
  if (!u || u.projectId !== projectId) throw new AppError('USER_NOT_FOUND', b.userId !== undefined ? { userId: b.userId } : { email: b.email });
  return u;
}

async function setRole(
  deps: Pick<Deps, 'clock'> & StoreOf<'transaction'>,
  homeId: number,
  userId: number,
  role: HomeRole,
  create: boolean,
): Promise<MemberRow> {
  let row: MemberRow | undefined;
  await changeMembers(deps.store, homeId, async (tx, members) => {
    const existing = members.find((m) => m.userId === userId);
    if (!existing && !create) throw new AppError('USER_NOT_FOUND', { userId });
    row = { homeId, userId, role, creationTime: existing?.creationTime ?? deps.clock.now().toISOString() };
    await tx.members.upsert(row);
    return [...members.filter((m) => m.userId !== userId), row];
  });
  return row!;
}

/**
 * adds a member (by userId or email). Adding one already there with its role answers it unchanged
 * (a retry is harmless); with another role it is refused: roles change only through PATCH, so a
 * second invitation never demotes or promotes anyone unnoticed (docs/api.md#homes-and-members).
 */
export async function addMember({ deps, caller, input: { homeId, body } }: VerbArgs<D, HomeRef & Body>): Promise<Member> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'owner']);
  const b = parseInput(AddMemberBodySchema, body);
  const u = await userOfProject(deps.store, h.projectId, b);
  const existing = await deps.store.members.get(h.id, u.id);
  if (existing) {
    if (existing.role === b.role) return memberView(existing, u);
    throw new AppError('ALREADY_EXISTS', {
      homeId: h.id,
      userId: u.id,
      role: existing.role,
      message: `user ${u.id} is already a ${existing.role} of home ${h.id}; change a role with PATCH /homes/${h.id}/members/${u.id}`,
    });
  }
  return memberView(await setRole(deps, h.id, u.id, b.role, true), u);
}

/** PATCH /homes/{homeId}/members/{userId} {role} */
export async function updateMember({ deps, caller, input: { homeId, userId, body } }: VerbArgs<D, { homeId: number; userId: number } & Body>): Promise<Member> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'owner']);
  const b = parseInput(PatchMemberBodySchema, body);
  return withUser(deps.store, await setRole(deps, h.id, userId, b.role, false));
}

export async function removeMember({
  deps,
  caller,
  input: { homeId, userId },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'homes' | 'members' | 'transaction'>, { homeId: number; userId: number }>): Promise<void> {
  const leaving = caller.type === 'user' && caller.userId === userId;
  const h = await homeFor(deps, caller, homeId, leaving ? ['project key', 'member'] : ['project key', 'owner']);
  await changeMembers(deps.store, h.id, async (tx, members) => {
    if (!(await tx.members.delete(h.id, userId))) throw new AppError('USER_NOT_FOUND', { userId });
    return members.filter((m) => m.userId !== userId);
  });
}
