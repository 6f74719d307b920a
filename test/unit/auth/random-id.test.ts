// Generated ids (project keys, log requests, uploads) never begin with '-', so the admin CLI
// cannot read one as an option; they stay base64url of the length they always had.
import { describe, expect, it } from 'vitest';
import { RandomSource } from '../../../src/domain/crypto/random.js';

const random = new RandomSource();
const randomId = (bytes?: number) => random.id(bytes);

describe('RandomSource.id', () => {
  it('begins with a letter or digit across many draws, and keeps the base64url alphabet and length', () => {
    const ids = Array.from({ length: 20_000 }, () => randomId());
    const firsts = new Set<string>();
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
      firsts.add(id[0]);
    }
    // the first character still varies over the whole alphanumeric set (20,000 draws of 62)
    expect(firsts.size).toBe(62);
    // the rest still carries '-' and '_' where base64url puts them
    expect(ids.some((id) => id.slice(1).includes('-'))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the length base64url gives for other sizes', () => {
    for (const bytes of [6, 9, 12, 32]) {
      const id = randomId(bytes);
      expect(id).toHaveLength(Buffer.alloc(bytes).toString('base64url').length);
      expect(id[0]).toMatch(/[A-Za-z0-9]/);
    }
  });
});
