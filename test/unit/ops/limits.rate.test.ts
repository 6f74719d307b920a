// Rate limits (docs/api.md#errors): a token bucket per credential (per client IP without one), 429
// RATE_LIMITED with Retry-After; operations without 429 in their documented list are exempt.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedKey } from '../../helpers/store-seed.js';

describe('rate limit', () => {
  let t: TestApi;
  let deviceId: number;
  beforeEach(async () => {
    t = await makeTestApi({ rateLimit: { perSecond: 5, burst: 5 } });
    ({
      device: { id: deviceId },
    } = await seedDevice(t.deps));
  });
  afterEach(() => t.close());

  const burst = async (n: number, token?: string, path = `/devices/${deviceId}/kv`) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await t.req('GET', path, { token }));
    return out;
  };

  it('answers 429 RATE_LIMITED with Retry-After once a credential has spent its bucket', async () => {
    const rs = await burst(8, t.adminKey);
    expect(rs.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const limited = rs.slice(5);
    for (const r of limited) {
      expect(r.status).toBe(429);
      expect(r.body.reason).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.body.data.retryAfter).toBe(Number(r.headers.get('retry-after')));
    }
  });

  it('gives two keys separate buckets', async () => {
    const { key: second } = await seedKey(t.deps, { scopes: ['kv'] });
    expect((await burst(6, t.adminKey)).at(-1)!.status).toBe(429);
    expect((await burst(5, second)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('limits callers without a credential by client IP', async () => {
    const rs = await burst(7, undefined);
    expect(rs.slice(0, 5).every((r) => r.status === 401)).toBe(true);
    expect(rs.at(-1)!.status).toBe(429);
    // a credential has its own bucket, untouched by the anonymous ones
    expect((await burst(1, t.adminKey))[0].status).toBe(200);
  });

  it('limits unknown tokens by client IP too, so they cannot probe without limit', async () => {
    const rs = await burst(7, 'pk.guessed-token');
    expect(rs.slice(0, 5).every((r) => r.body.reason === 'INVALID_TOKEN')).toBe(true);
    expect(rs.at(-1)!.status).toBe(429);
  });

  it('never limits createUpdateKeyValuePair (no 429 in its documented list)', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await t.req('PUT', `/devices/${deviceId}/kv/k${i % 3}`, { token: t.adminKey, body: { value: i } });
      expect(r.status, `request ${i}`).toBe(204);
    }
    // and the exempt requests did not spend the key's bucket either
    expect((await burst(5, t.adminKey)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('does not limit the operations endpoints', async () => {
    const rs = await burst(12, undefined, '/healthz');
    expect(rs.every((r) => r.status === 200)).toBe(true);
  });
});
