// Stream tickets in cluster mode (docs/api.md#stream-tickets): a ticket issued by one node is redeemed on
// another (it lives in the shared store, not in a process), and only once across all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';
import { wsConnect } from '../broker/clients.js';

const SECRET = 'cluster-secret-cluster-secret-cluster';

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('stream tickets across nodes', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let api: TestHearth;
  let broker: TestHearth;

  beforeAll(async () => {
    const cluster = { databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix, secret: SECRET };
    api = await startTestHearth({ ...cluster });
    broker = await startTestHearth({ ...cluster, roles: ['broker', 'api'] });
  });
  afterAll(async () => {
    await broker?.close();
    await api?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
  });

  it('one node issues, another redeems once; the first node refuses it then', async () => {
    const home = await api.seedHome();
    const d = await api.seedDevice({ homeId: home });
    const u = await api.seedUser({ homeIds: [home] });
    const r = await api.http('POST', '/auth/ticket', { token: u.token });
    expect(r.status).toBe(201);
    const path = `/userSession/websocket?ticket=${encodeURIComponent(r.body.ticket)}`;
    const peer = await wsConnect(broker, path);
    await expect(wsConnect(api, path)).rejects.toMatchObject({ status: 401, body: { reason: 'INVALID_TOKEN' } });
    await expect(wsConnect(broker, path)).rejects.toMatchObject({ status: 401, body: { reason: 'INVALID_TOKEN' } });
    expect((await api.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'acrossNodes', eventData: {} } })).status).toBe(204);
    expect(await peer.next()).toMatchObject({ eventType: 'acrossNodes' });
  });

  it('of 10 concurrent redemptions on two nodes, exactly one opens', async () => {
    const k = await api.seedProjectKey(['events']);
    const r = await api.http('POST', '/auth/ticket', { token: k.key });
    const path = `/userSession/websocket?ticket=${encodeURIComponent(r.body.ticket)}`;
    const tries = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => wsConnect(i % 2 ? api : broker, path)));
    expect(tries.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
  });
});
