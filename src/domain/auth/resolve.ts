// Resolves a presented token to a Caller. The prefix says where to look; only hashes are compared.
import type { Deps } from '../deps.js';
import type { ApiKeyRow, DeviceRow, SessionRow, UserRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { Caller } from './caller.js';
import { hashToken } from './tokens.js';

type D = Pick<Deps, 'store' | 'clock'>;

const keyCaller = (k: ApiKeyRow, ip: string | undefined): Caller => ({ type: 'project key', projectId: k.projectId, keyId: k.id, keyName: k.name, scopes: k.scopes, ip });
const userCaller = (u: UserRow, hash: string, ip: string | undefined): Caller => ({
  type: 'user',
  projectId: u.projectId,
  userId: u.id,
  tokenHash: hash,
  canCreateDevices: u.canCreateDevices,
  ip,
});
const deviceCaller = (d: DeviceRow, ip: string | undefined): Caller => ({ type: 'device', projectId: d.projectId, deviceId: d.id, deviceClass: d.deviceClass, ip });
const live = (deps: D, s: SessionRow | undefined): s is SessionRow => s !== undefined && s.expirationTime > deps.clock.now().toISOString();

/** `hash`: hashToken(token), when the caller has it already */
export async function resolveCaller(deps: D, token: string | undefined, ip?: string, hash = token && hashToken(token)): Promise<Caller> {
  if (!token || !hash) return { type: 'nobody', ip };
  if (token.startsWith('pk.')) {
    const k = await deps.store.apiKeys.getByHash(hash);
    if (k) return keyCaller(k, ip);
  } else if (token.startsWith('ut.')) {
    const s = await deps.store.sessions.getByHash(hash);
    if (live(deps, s)) {
      const u = await deps.store.users.get(s.userId);
      if (u) return userCaller(u, hash, ip);
    }
  } else if (token.startsWith('dk.')) {
    const d = await deps.store.devices.getByKeyHash(hash);
    if (d) return deviceCaller(d, ip);
  }
  throw new AppError('INVALID_TOKEN');
}

/**
 * The caller of a token whose rows the store's read cache holds now (peek), without a promise;
 * undefined when the store must be asked (resolveCaller), which also gives every refusal.
 */
export function resolveCallerNow(deps: D, token: string, hash: string, ip?: string): Caller | undefined {
  const { store } = deps;
  if (token.startsWith('pk.')) {
    const k = store.apiKeys.peekByHash?.(hash);
    return k && keyCaller(k, ip);
  }
  if (token.startsWith('ut.')) {
    const s = store.sessions.peekByHash?.(hash);
    const u = live(deps, s) ? store.users.peek?.(s.userId) : undefined;
    return u && userCaller(u, hash, ip);
  }
  if (token.startsWith('dk.')) {
    const d = store.devices.peekByKeyHash?.(hash);
    return d && deviceCaller(d, ip);
  }
  return undefined;
}

/** `Authorization: ModeCloud <token>` or `Bearer <token>` (docs/api.md#credentials) */
export function tokenFromHeader(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^\s*(ModeCloud|Bearer)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : undefined;
}
