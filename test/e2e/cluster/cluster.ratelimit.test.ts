// The HTTP rate limit is one budget per credential across the cluster (issue #6, docs/api.md#errors): two
// api nodes share its buckets in Redis, so a client that spreads its requests over both gets what
// one node would allow, not twice as much.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';

const PER_SECOND = 2;
const BURST = 20;

describe.skipIf(!canRunCluster)('rate limits shared by two api nodes', () => {
  let c: Cluster;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api1', roles: ['api'] },
        { name: 'api2', roles: ['api'] },
      ],
      env: { HEARTH_RATE_LIMIT_PER_SECOND: String(PER_SECOND), HEARTH_RATE_LIMIT_BURST: String(BURST) },
    });
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it('one credential spreading its requests over both nodes gets about the limit of one, and 429s from each', { timeout: 60_000 }, async () => {
    const created = await c.http('api1', 'POST', '/projects/1/apiKeys', { body: { name: 'limited', scopes: ['admin'] } });
    expect(created.status).toBe(201);
    const key: string = created.body.key;

    const statuses: Record<string, number[]> = { api1: [], api2: [] };
    const started = Date.now();
    for (let i = 0; i < 60; i++) {
      const node = i % 2 === 0 ? 'api1' : 'api2';
      const r = await c.http(node, 'GET', '/devices?projectId=1', { token: key });
      statuses[node].push(r.status);
      if (r.status === 429) {
        expect(r.body).toMatchObject({ reason: 'RATE_LIMITED' });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } else expect(r.status).toBe(200);
    }
    const elapsedSeconds = (Date.now() - started) / 1000;

    const allowed = [...statuses.api1, ...statuses.api2].filter((s) => s === 200).length;
    // one budget: the burst, plus what the steady rate refilled meanwhile (the burst allowance
    // itself comes back every 10 s). Two budgets, one per node, would allow about twice the burst.
    expect(allowed).toBeGreaterThanOrEqual(BURST);
    expect(allowed).toBeLessThanOrEqual(BURST + PER_SECOND * Math.floor(elapsedSeconds) + (BURST - PER_SECOND) * Math.floor(elapsedSeconds / 10));
    expect(statuses.api1).toContain(429);
    expect(statuses.api2).toContain(429);
    // the budget is the credential's: another key is not held back
    expect((await c.http('api2', 'GET', '/devices?projectId=1')).status).toBe(200);
  });
});
