// Device credentials (docs/api.md#credentials): the device API key and the claim code are random, looked up by
// hash only, and kept sealed with the server secret so privileged clients can read them back.
import type { Deps } from '../deps.js';
import type { Sealer } from '../crypto/sealer.js';
import { hashToken, normalizeClaimCode } from '../auth/tokens.js';
import { AppError } from '../errors.js';

export function newDeviceKey(deps: Pick<Deps, 'sealer' | 'random'>): { apiKey: string; apiKeyHash: string; apiKeySealed: string } {
  const apiKey = deps.random.token('dk.');
  return { apiKey, apiKeyHash: hashToken(apiKey), apiKeySealed: deps.sealer.seal(apiKey) };
}

/** claim codes are compared without case or dashes: the hash is of the normalized form */
export const claimCodeHash = (code: string): string => hashToken(normalizeClaimCode(code));

export function claimCodeFields(sealer: Sealer, code: string): { claimCodeHash: string; claimCodeSealed: string } {
  const n = normalizeClaimCode(code);
  // a short code could be guessed by anyone with a home; 8 characters of our alphabet are 40 bits
  if (n.length < 8 || n.length > 64) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'claimCode', message: 'claimCode must have 8 to 64 letters and digits' }] });
  }
  return { claimCodeHash: hashToken(n), claimCodeSealed: sealer.seal(code) };
}

export function newClaimCode(deps: Pick<Deps, 'sealer' | 'random'>): { claimCode: string; claimCodeHash: string; claimCodeSealed: string } {
  const claimCode = deps.random.claimCode();
  return { claimCode, ...claimCodeFields(deps.sealer, claimCode) };
}
