// Credentials are random (32 bytes, crypto/random.ts) with a readable prefix (docs/api.md#credentials). Only their SHA-256 is
// stored for lookup: the tokens carry 256 bits of entropy, so a fast hash is enough (passwords,
// which do not, use scrypt in password.ts).
import * as crypto from 'node:crypto';
import { createHash, createHmac } from 'node:crypto';

// crypto.hash (Node >= 20.12) hashes in one call, at under half the cost of a Hash object; every
// authenticated request hashes its token
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

/** claim codes are compared without case or dashes */
export function normalizeClaimCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/**
 * Mailed codes are short enough to type, so a plain hash of one could be reversed by trying them
 * all: they are stored as an HMAC keyed by the server secret, bound to the user and purpose.
 */
export function hashAccountCode(secret: string, scope: string, code: string): string {
  return createHmac('sha256', secret)
    .update(`${scope}\n${normalizeClaimCode(code)}`)
    .digest('hex');
}
