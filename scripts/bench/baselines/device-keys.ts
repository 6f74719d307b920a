// A device key and its sealed form, for the device rows a bench writes straight through the store.
// Sealing goes through the server's Deps.sealer, or a sealer of the cluster's secret for a seeder
// over a bare store; a tree from before Deps.sealer (issue 24 moved sealing out of
// src/domain/auth/tokens.ts) is still served, so `--against <rev> --same-harness` can measure it.
import { randomBytes } from 'node:crypto';
import type { Hearth } from '../../../src/main.js';

/** a fresh device key, as the registry makes them (docs/api.md#credentials: `dk.` + 32 random bytes) */
export const newBenchDeviceKey = (): string => 'dk.' + randomBytes(32).toString('base64url');

/** seals a plaintext as the given server (or a seeder holding its store and secret) does */
export async function sealerOf(hearth: Hearth): Promise<(plaintext: string) => string> {
  const sealer = (hearth.deps as { sealer?: { seal(plaintext: string): string } }).sealer;
  if (sealer) return (plaintext) => sealer.seal(plaintext);
  const older = (await import('../../../src/domain/auth/tokens.js')) as { seal?: (secret: string, plaintext: string) => string };
  const seal = older.seal;
  if (seal) return (plaintext) => seal(hearth.deps.secret, plaintext);
  const [{ Sealer }, { RandomSource }] = await Promise.all([import('../../../src/domain/crypto/sealer.js'), import('../../../src/domain/crypto/random.js')]);
  const own = new Sealer(hearth.deps.secret, new RandomSource());
  return (plaintext) => own.seal(plaintext);
}
