// The per-device MQTT bounds of API.md §5 (issue 13 F3) in cluster mode: Aedes's persistence is
// aedes-persistence-redis and the session bookkeeping is the Redis MqttSessions adapter. The
// same suite as the embedded broker (test/e2e/broker/mqtt-bounds.ts), plus a session evicted by
// the other broker of the cluster. Skipped without HEARTH_TEST_REDIS_URL and
// HEARTH_TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';
import { BOUNDS, boundsSuite, sessionPresent } from '../broker/mqtt-bounds.js';
import { eventually, mqttConnect, subscribeGranted } from '../broker/clients.js';

const SECRET = 'cluster-secret-cluster-secret-cluster';

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('MQTT bounds on the Redis persistence', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let a: TestHearth;
  let b: TestHearth;

  beforeAll(async () => {
    const cluster = { databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix, secret: SECRET, mqtt: BOUNDS };
    a = await startTestHearth(cluster);
    b = await startTestHearth({ ...cluster, roles: ['broker', 'api'] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
  });

  boundsSuite(() => a);

  it('sessions opened on one broker count on the other: the oldest offline one is evicted there', async () => {
    const d = await a.seedDevice();
    for (const id of ['x1', 'x2']) {
      const c = await mqttConnect(a, d, { clientId: id, clean: false });
      await subscribeGranted(c, { [`/devices/${d.id}/command`]: 1 });
      await c.endAsync();
    }
    const persistence = (b.hearth.broker!.aedes as unknown as { persistence: { subscriptionsByClient(c: { id: string }): Promise<unknown[]> } }).persistence;
    await eventually(async () => (await persistence.subscriptionsByClient({ id: `${d.id}/x1` })).length === 1, 3000, 'x1 stored');
    const c3 = await mqttConnect(b, d, { clientId: 'x3', clean: false });
    await eventually(async () => (await persistence.subscriptionsByClient({ id: `${d.id}/x1` })).length === 0, 3000, 'x1 evicted');
    await c3.endAsync();
    expect(await sessionPresent(b, d, 'x2')).toBe(true);
    expect(await sessionPresent(a, d, 'x1')).toBe(false);
  });
});
