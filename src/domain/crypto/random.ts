// The random source of a process (Deps.random): credentials, ids, claim and account codes and IVs
// are cut from blocks of CSPRNG bytes (docs/api.md#credentials: tokens are 32 random bytes with
// a readable prefix). A randomBytes call per token, IV and claim code cost more than the key's
// hash (`devices import` of 100,000 devices makes four per device: issue #25), so bytes come in
// blocks of 4 KiB, each byte handed out once and never reused.
import { randomBytes } from 'node:crypto';

export type TokenPrefix = 'pk.' | 'dk.' | 'ut.' | 'pt.' | 'cc.' | 'wt.';

const BLOCK_BYTES = 4096;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CLAIM_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export class RandomSource {
  /** the current block and how much of it is handed out (a new block on refill: slices stay valid) */
  private block = Buffer.alloc(0);
  private at = 0;

  /** n fresh random bytes */
  bytes(n: number): Buffer {
    if (n > BLOCK_BYTES / 8) return randomBytes(n);
    if (this.at + n > this.block.length) {
      this.block = randomBytes(BLOCK_BYTES);
      this.at = 0;
    }
    const out = this.block.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** a credential: the prefix and 32 random bytes in base64url */
  token(prefix: TokenPrefix): string {
    return prefix + this.bytes(32).toString('base64url');
  }

  /**
   * Short random id for keys, log requests, uploads...: base64url, whose first character is
   * always a letter or digit, because an id that begins with '-' reads as an option on a command
   * line (`hearth-admin keys revoke -x...`). The first character is drawn from the 62 alphanumerics
   * instead of the 64 base64url characters, so the id loses a fraction of a bit, not its length.
   */
  id(bytes = 12): string {
    const b = this.bytes(bytes + 1);
    return ALNUM[b[bytes] % ALNUM.length] + b.subarray(0, bytes).toString('base64url').slice(1);
  }

  /** A claim code a person can type: 12 characters without look-alikes, in groups of four. */
  claimCode(): string {
    const b = this.bytes(12);
    let s = '';
    for (let i = 0; i < 12; i++) s += CLAIM_ALPHABET[b[i] % CLAIM_ALPHABET.length] + (i % 4 === 3 && i < 11 ? '-' : '');
    return s;
  }

  /** docs/concepts.md#accounts: a mailed code a person can type: 8 characters without look-alikes, `XXXX-XXXX` */
  accountCode(): string {
    return this.claimCode().slice(0, 9);
  }
}
