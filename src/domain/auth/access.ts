// Access rules shared by every verb. Objects the caller may not see are reported as missing, so
// nothing of another project or home is revealed (docs/api.md#credentials).
import type { StoreOf } from '../deps.js';
import type { DeviceRow, HomeRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { Caller, Scope } from '../caller.js';
import type { Maybe } from '../maybe.js';

export function requireCaller(caller: Caller): asserts caller is Exclude<Caller, { type: 'nobody' }> {
  if (caller.type === 'nobody') throw new AppError('AUTHORIZATION_REQUIRED');
}

export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.type === 'project key' && (caller.scopes.includes('admin') || caller.scopes.includes(scope));
}

/** a project key of that project holding the scope (or `admin`) */
export function requireProjectKey(caller: Caller, projectId: number, scope: Scope): asserts caller is Extract<Caller, { type: 'project key' }> {
  requireCaller(caller);
  if (caller.type !== 'project key' || caller.projectId !== projectId || !hasScope(caller, scope)) {
    throw new AppError('PERMISSION_DENIED', { required: `project key with scope ${scope}` });
  }
}

/**
 * A project key of this project holding the scope (or `admin`), for what only such keys manage
 * (modules, data sources). Another project's are reported as not existing (PROJECT_NOT_FOUND).
 */
export function requireProjectManager(caller: Caller, projectId: number, scope: Scope): asserts caller is Extract<Caller, { type: 'project key' }> {
  requireCaller(caller);
  if (caller.projectId !== projectId) throw new AppError('PROJECT_NOT_FOUND', { projectId });
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: `project key with scope ${scope}` });
  if (!hasScope(caller, scope)) throw new AppError('PERMISSION_DENIED', { required: `scope ${scope}` });
}

export type DeviceAccess = 'project key' | 'member' | 'self';
/** what deviceFor reads: the device, and the membership of a user caller in its home */
export type DeviceAccessDeps = StoreOf<'devices' | 'members'>;

/**
 * Loads a device the caller may act on. `who` lists the kinds of caller the operation admits; a
 * caller who cannot see the device at all gets DEVICE_NOT_FOUND, one who sees it but is not
 * admitted gets PERMISSION_DENIED. Without a promise when nothing needs the store: the row is in
 * the read cache and the caller is not a user (whose membership is read).
 */
export function deviceFor(deps: DeviceAccessDeps, caller: Caller, deviceId: number, who: readonly DeviceAccess[], scope: Scope = 'devices'): Maybe<DeviceRow> {
  requireCaller(caller);
  const cached = deps.store.devices.peek?.(deviceId);
  if (cached && caller.type !== 'user') return admitted(caller, cached, deviceId, who, scope, false);
  return deviceLater(deps, caller, deviceId, who, scope, cached);
}

async function deviceLater(
  deps: DeviceAccessDeps,
  caller: Exclude<Caller, { type: 'nobody' }>,
  deviceId: number,
  who: readonly DeviceAccess[],
  scope: Scope,
  cached: DeviceRow | undefined,
): Promise<DeviceRow> {
  const d = cached ?? (await deps.store.devices.get(deviceId));
  const member =
    caller.type === 'user' && d && d.projectId === caller.projectId && d.homeId !== null ? !!(await deps.store.members.get(d.homeId, caller.userId)) : false;
  return admitted(caller, d, deviceId, who, scope, member);
}

/** the rules of deviceFor over a loaded row (`member`: the user caller is in the device's home) */
function admitted(
  caller: Exclude<Caller, { type: 'nobody' }>,
  d: DeviceRow | undefined,
  deviceId: number,
  who: readonly DeviceAccess[],
  scope: Scope,
  member: boolean,
): DeviceRow {
  if (!d || d.projectId !== caller.projectId) throw new AppError('DEVICE_NOT_FOUND', { deviceId });
  let as: DeviceAccess | undefined;
  if (caller.type === 'project key') as = 'project key';
  else if (caller.type === 'device') as = caller.deviceId === d.id ? 'self' : undefined;
  else if (caller.type === 'user' && member) as = 'member';
  if (!as) throw new AppError('DEVICE_NOT_FOUND', { deviceId });
  admit(caller, as, who, scope);
  return d;
}

/** the operation admits callers of this kind (`as`); a project key must hold the scope too */
function admit<A extends string>(caller: Caller, as: A, who: readonly A[], scope: Scope): void {
  if (!who.includes(as)) throw new AppError('PERMISSION_DENIED');
  if (as === 'project key' && !hasScope(caller, scope)) throw new AppError('PERMISSION_DENIED', { required: `scope ${scope}` });
}

export type HomeAccess = 'project key' | 'member' | 'owner';
/** what homeFor reads: the home, and the membership of a user caller */
export type HomeAccessDeps = StoreOf<'homes' | 'members'>;

/** Loads a home the caller may act on (project key of its project, or a member / owner). */
export async function homeFor(deps: HomeAccessDeps, caller: Caller, homeId: number, who: readonly HomeAccess[], scope: Scope = 'homes'): Promise<HomeRow> {
  requireCaller(caller);
  const h = await deps.store.homes.get(homeId);
  if (!h || h.projectId !== caller.projectId) throw new AppError('HOME_NOT_FOUND', { homeId });
  if (caller.type === 'project key') {
    admit(caller, 'project key', who, scope);
    return h;
  }
  if (caller.type !== 'user') throw new AppError('PERMISSION_DENIED');
  const m = await deps.store.members.get(homeId, caller.userId);
  if (!m) throw new AppError('HOME_NOT_FOUND', { homeId });
  if (who.includes('member') || (who.includes('owner') && m.role === 'owner')) return h;
  throw new AppError('PERMISSION_DENIED', { required: 'home owner' });
}
