// Resolves a presented token to a Caller. The prefix says where to look; only hashes are compared.
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { Caller } from './caller.js';
import { hashToken } from './tokens.js';

export async function resolveCaller(deps: Pick<Deps, 'store' | 'clock'>, token: string | undefined, ip?: string): Promise<Caller> {
  if (!token) return { type: 'nobody', ip };
  const hash = hashToken(token);
  if (token.startsWith('pk.')) {
    const k = await deps.store.apiKeys.getByHash(hash);
    if (k) return { type: 'project key', projectId: k.projectId, keyId: k.id, keyName: k.name, scopes: k.scopes, ip };
  } else if (token.startsWith('ut.')) {
    const s = await deps.store.sessions.getByHash(hash);
    if (s && s.expirationTime > deps.clock.now().toISOString()) {
      const u = await deps.store.users.get(s.userId);
      if (u) return { type: 'user', projectId: u.projectId, userId: u.id, tokenHash: hash, canCreateDevices: u.canCreateDevices, ip };
    }
  } else if (token.startsWith('dk.')) {
    const d = await deps.store.devices.getByKeyHash(hash);
    if (d) return { type: 'device', projectId: d.projectId, deviceId: d.id, deviceClass: d.deviceClass, ip };
  }
  throw new AppError('INVALID_TOKEN');
}

/** `Authorization: ModeCloud <token>` or `Bearer <token>` (API.md §1) */
export function tokenFromHeader(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const m = /^\s*(ModeCloud|Bearer)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : undefined;
}
