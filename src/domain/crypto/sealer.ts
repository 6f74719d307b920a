// Sealed secrets (Deps.sealer): device keys, claim codes and webhook keys are stored sealed with
// AES-256-GCM under a key derived from the server secret, `v1.<iv>.<tag>.<ciphertext>` in base64url.
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { RandomSource } from './random.js';

// Privileged device reads unseal the device key on every GET and the webhook sender a target key
// per delivery, and setting up AES-GCM costs more than the rest of either (`npm run bench -- api`,
// `webhooks`). A sealed string never changes its plaintext (each has its own random IV), so the
// most recent ones are remembered. This keeps nothing in memory that was not there already: the
// secret that opens every sealed value is.
const UNSEALED_MAX = 10_000;

export class Sealer {
  private readonly key: Buffer;
  private readonly unsealed = new Map<string, string>();

  constructor(
    secret: string,
    private readonly random: RandomSource,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'hearth', 'device-key-seal', 32));
  }

  seal(plaintext: string): string {
    const iv = this.random.bytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  /** the plaintext; throws on a value that does not open (another secret, or tampered), which is not remembered */
  unseal(sealed: string): string {
    const hit = this.unsealed.get(sealed);
    if (hit !== undefined) return hit;
    const plain = this.open(sealed);
    if (this.unsealed.size >= UNSEALED_MAX) this.unsealed.delete(this.unsealed.keys().next().value!);
    this.unsealed.set(sealed, plain);
    return plain;
  }

  private open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed value');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
  }
}
