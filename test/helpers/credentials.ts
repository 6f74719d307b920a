// Credentials, ids and sealed values for fixtures written straight through the store, made by the
// server's own sources (src/domain/crypto/): the same formats, from one random source per test file.
import { RandomSource, type TokenPrefix } from '../../src/domain/crypto/random.js';
import { IdSource } from '../../src/domain/crypto/ids.js';
import { Sealer } from '../../src/domain/crypto/sealer.js';

const random = new RandomSource();
const ids = new IdSource(random);

export const generateToken = (prefix: TokenPrefix): string => random.token(prefix);
export const randomId = (bytes?: number): string => random.id(bytes);
/** an event id as the server makes them (time-ordered) */
export const newEventId = (now: Date): string => ids.event(now);
/** a sealer under `secret`, as a server with that secret has (Deps.sealer) */
export const sealerOf = (secret: string): Sealer => new Sealer(secret, random);
