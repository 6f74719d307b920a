// Store contract: provisioning tokens, single use even under concurrent consumers.
import { describe, expect, it } from 'vitest';
import type { ProvisioningTokenRow } from '../../../src/ports/store.js';
import { at, freshStore, unique, type MakeStore } from './fixtures.js';

const token = (over: Partial<ProvisioningTokenRow> = {}): ProvisioningTokenRow => ({
  tokenHash: unique('prov'),
  projectId: 1,
  homeId: 2,
  deviceClass: 'lamp',
  deviceTag: 'batch-7',
  expirationTime: at(600),
  usedTime: null,
  ...over,
});

export function provisioningContract(make: MakeStore): void {
  describe('provisioningTokens', () => {
    it('consumes an unused token once, stamping the use time', async () => {
      const store = await freshStore(make);
      const t = token();
      await store.provisioningTokens.create(t);
      expect(await store.provisioningTokens.consume(t.tokenHash, at(10))).toEqual({ ...t, usedTime: at(10) });
      expect(await store.provisioningTokens.consume(t.tokenHash, at(11))).toBeUndefined();
    });

    it('keeps a null device tag null', async () => {
      const store = await freshStore(make);
      const t = token({ deviceTag: null });
      await store.provisioningTokens.create(t);
      expect((await store.provisioningTokens.consume(t.tokenHash, at(10)))?.deviceTag).toBeNull();
    });

    it('refuses an expired token, and one at its expiration instant', async () => {
      const store = await freshStore(make);
      const expired = token({ expirationTime: at(5) });
      const edge = token({ expirationTime: at(10) });
      await store.provisioningTokens.create(expired);
      await store.provisioningTokens.create(edge);
      expect(await store.provisioningTokens.consume(expired.tokenHash, at(10))).toBeUndefined();
      expect(await store.provisioningTokens.consume(edge.tokenHash, at(10))).toBeUndefined();
    });

    it('refuses an unknown token', async () => {
      const store = await freshStore(make);
      expect(await store.provisioningTokens.consume('unknown', at(0))).toBeUndefined();
    });

    it('lets exactly one of 20 concurrent consumers win', async () => {
      const store = await freshStore(make);
      const t = token();
      await store.provisioningTokens.create(t);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.provisioningTokens.consume(t.tokenHash, at(10 + i))));
      const winners = results.filter((r) => r !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({ tokenHash: t.tokenHash, usedTime: expect.any(String) });
    });
  });
}
