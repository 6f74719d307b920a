// Device credentials (docs/api.md#credentials): the device API key and the claim code are random, looked up by
// hash only, and kept sealed with the server secret so privileged clients can read them back.
import { generateClaimCode, generateToken, hashToken, normalizeClaimCode, seal } from '../auth/tokens.js';
import { AppError } from '../errors.js';

export function newDeviceKey(secret: string): { apiKey: string; apiKeyHash: string; apiKeySealed: string } {
  const apiKey = generateToken('dk.');
  return { apiKey, apiKeyHash: hashToken(apiKey), apiKeySealed: seal(secret, apiKey) };
}

/** claim codes are compared without case or dashes: the hash is of the normalized form */
export const claimCodeHash = (code: string): string => hashToken(normalizeClaimCode(code));

export function claimCodeFields(secret: string, code: string): { claimCodeHash: string; claimCodeSealed: string } {
  const n = normalizeClaimCode(code);
  // a short code could be guessed by anyone with a home; 8 characters of our alphabet are 40 bits
  if (n.length < 8 || n.length > 64) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'claimCode', message: 'claimCode must have 8 to 64 letters and digits' }] });
  }
  return { claimCodeHash: hashToken(n), claimCodeSealed: seal(secret, code) };
}

export function newClaimCode(secret: string): { claimCode: string; claimCodeHash: string; claimCodeSealed: string } {
  const claimCode = generateClaimCode();
  return { claimCode, ...claimCodeFields(secret, claimCode) };
}
