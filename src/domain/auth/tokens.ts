// Credentials are random (32 bytes) with a readable prefix (docs/api.md#credentials). Only their SHA-256 is
// stored for lookup: the tokens carry 256 bits of entropy, so a fast hash is enough (passwords,
// which do not, use scrypt in password.ts).
import * as crypto from 'node:crypto';
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export type TokenPrefix = 'pk.' | 'dk.' | 'ut.' | 'pt.' | 'cc.' | 'wt.';

// Random bytes come from the CSPRNG (randomBytes) in blocks of 4 KiB, each byte handed out once
// and never reused; a call per token, IV and claim code cost more than the key's hash
// (`devices import` of 100,000 devices makes four per device: issue #25).
const POOL_BYTES = 4096;
/** the current block and how much of it is handed out (a new block on refill: slices stay valid) */
let pool = { bytes: Buffer.alloc(0), at: 0 };

function random(n: number): Buffer {
  if (n > POOL_BYTES / 8) return randomBytes(n);
  if (pool.at + n > pool.bytes.length) pool = { bytes: randomBytes(POOL_BYTES), at: 0 };
  const out = pool.bytes.subarray(pool.at, pool.at + n);
  pool.at += n;
  return out;
}

export function generateToken(prefix: TokenPrefix): string {
  return prefix + random(32).toString('base64url');
}

// crypto.hash (Node >= 20.12) hashes in one call, at under half the cost of a Hash object; every
// authenticated request hashes its token
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Short random id for keys, log requests, deliveries...: base64url, whose first character is
 * always a letter or digit, because an id that begins with '-' reads as an option on a command
 * line (`hearth-admin keys revoke -x...`). The first character is drawn from the 62 alphanumerics
 * instead of the 64 base64url characters, so the id loses a fraction of a bit, not its length.
 */
export function randomId(bytes = 12): string {
  const b = random(bytes + 1);
  return ALNUM[b[bytes] % ALNUM.length] + b.subarray(0, bytes).toString('base64url').slice(1);
}

/** A claim code a person can type: 12 characters without look-alikes, in groups of four. */
export function generateClaimCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const b = random(12);
  let s = '';
  for (let i = 0; i < 12; i++) s += alphabet[b[i] % alphabet.length] + (i % 4 === 3 && i < 11 ? '-' : '');
  return s;
}

/** claim codes are compared without case or dashes */
export function normalizeClaimCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** docs/concepts.md#accounts: a mailed code a person can type: 8 characters without look-alikes, `XXXX-XXXX` */
export function generateAccountCode(): string {
  return generateClaimCode().slice(0, 9);
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

const sealKeys = new Map<string, Buffer>();
function sealKey(secret: string): Buffer {
  let k = sealKeys.get(secret);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', secret, 'hearth', 'device-key-seal', 32));
    sealKeys.set(secret, k);
  }
  return k;
}

/** AES-256-GCM; output `v1.<iv>.<tag>.<ciphertext>` in base64url */
export function seal(secret: string, plaintext: string): string {
  const iv = random(12);
  const c = createCipheriv('aes-256-gcm', sealKey(secret), iv);
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

// Privileged device reads unseal the device key on every GET, and setting up AES-GCM costs more
// than the rest of the read (`npm run bench -- api`). A sealed string never changes its plaintext
// (each has its own random IV), so the most recent ones are remembered. This keeps nothing in
// memory that was not there already: the secret that opens every sealed value is.
const UNSEALED_MAX = 10_000;
const unsealedBySecret = new Map<string, Map<string, string>>();

export function unseal(secret: string, sealed: string): string {
  let unsealed = unsealedBySecret.get(secret);
  if (!unsealed) {
    // one secret per process in service; a test process starts many
    if (unsealedBySecret.size >= 16) unsealedBySecret.clear();
    unsealedBySecret.set(secret, (unsealed = new Map()));
  }
  const hit = unsealed.get(sealed);
  if (hit !== undefined) return hit;
  // a value that does not open throws here and is not remembered
  const plain = unsealUncached(secret, sealed);
  if (unsealed.size >= UNSEALED_MAX) unsealed.delete(unsealed.keys().next().value!);
  unsealed.set(sealed, plain);
  return plain;
}

function unsealUncached(secret: string, sealed: string): string {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed value');
  const d = createDecipheriv('aes-256-gcm', sealKey(secret), Buffer.from(iv, 'base64url'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
}
