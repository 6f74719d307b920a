// Resolves a presented token to a Caller. The prefix says where to look; only hashes are compared.
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import type { ApiKeyRow, DeviceRow, SessionRow, UserRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { Caller } from '../caller.js';
import { hashToken } from './tokens.js';
import type { Maybe } from '../maybe.js';

type D = Pick<Deps, 'clock'> & StoreOf<'apiKeys' | 'devices' | 'sessions' | 'users'>;

const keyCaller = (k: ApiKeyRow, ip: string | undefined): Caller => ({
  type: 'project key',
  projectId: k.projectId,
  keyId: k.id,
  keyName: k.name,
  scopes: k.scopes,
  ip,
});
const userCaller = (u: UserRow, hash: string, ip: string | undefined): Caller => ({
  type: 'user',
  projectId: u.projectId,
  userId: u.id,
  tokenHash: hash,
  canCreateDevices: u.canCreateDevices,
  ip,
});
/** the caller a device is once signed in (its key, or a client certificate: docs/tls.md#client-certificates) */
export const deviceCaller = (d: DeviceRow, ip: string | undefined): Caller => ({
  type: 'device',
  projectId: d.projectId,
  deviceId: d.id,
  deviceClass: d.deviceClass,
  ip,
});
const live = (deps: D, s: SessionRow | undefined): s is SessionRow => s !== undefined && s.expirationTime > deps.clock.now().toISOString();

/**
 * The caller of a token. Without a promise when the read cache holds the token's rows (peek):
 * the HTTP fast path admits most requests so. Otherwise the store is asked, and gives every
 * refusal; a token of no known kind is refused at once.
 */
export function resolveCaller({ deps, input: { token, ip } }: SystemArgs<D, { token: string | undefined; ip?: string }>): Maybe<Caller> {
  if (!token) return { type: 'nobody', ip };
  return callerOfCredential({ deps, input: { kind: token.slice(0, 3), hash: hashToken(token), ip } });
}

/**
 * The caller of a credential known by its kind (the token's prefix) and hash: what a stream ticket
 * stands for (ticket.ts), looked up as the token itself would be, so a revoked key or an ended
 * session is refused the same way.
 */
export function callerOfCredential({ deps, input: { kind, hash, ip } }: SystemArgs<D, { kind: string; hash: string; ip?: string }>): Maybe<Caller> {
  const { store } = deps;
  if (kind === 'pk.') {
    const k = store.apiKeys.peekByHash?.(hash);
    return k ? keyCaller(k, ip) : store.apiKeys.getByHash(hash).then((k) => (k ? keyCaller(k, ip) : invalid()));
  }
  if (kind === 'ut.') {
    const s = store.sessions.peekByHash?.(hash);
    const u = live(deps, s) ? store.users.peek?.(s.userId) : undefined;
    return u ? userCaller(u, hash, ip) : userLater(deps, hash, ip);
  }
  if (kind === 'dk.') {
    const d = store.devices.peekByKeyHash?.(hash);
    return d ? deviceCaller(d, ip) : store.devices.getByKeyHash(hash).then((d) => (d ? deviceCaller(d, ip) : invalid()));
  }
  return invalid();
}

async function userLater(deps: D, hash: string, ip: string | undefined): Promise<Caller> {
  const s = await deps.store.sessions.getByHash(hash);
  const u = live(deps, s) ? await deps.store.users.get(s.userId) : undefined;
  return u ? userCaller(u, hash, ip) : invalid();
}

function invalid(): never {
  throw new AppError('INVALID_TOKEN');
}

/** `Authorization: ModeCloud <token>` or `Bearer <token>` (docs/api.md#credentials) */
export function tokenFromHeader(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^\s*(ModeCloud|Bearer)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : undefined;
}
