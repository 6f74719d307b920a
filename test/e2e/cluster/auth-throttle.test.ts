// F5 in cluster mode: failed logins are counted in Redis, so two api nodes share them (docs/concepts.md).
// Failures spent on node a make node b answer 429 for that account; a success on b forgets them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('authentication throttling across api nodes', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let a: TestHearth;
  let b: TestHearth;

  beforeAll(async () => {
    const cluster = {
      databaseUrl: testDatabaseUrl!,
      databaseSchema: schema,
      redisUrl: REDIS_URL!,
      redisPrefix: prefix,
      secret: 'throttle-secret-throttle-secret',
      authThrottle: { enabled: true, accountFreeFailures: 2, clientFreeFailures: 50, baseDelaySeconds: 30, maxDelaySeconds: 900, windowSeconds: 3600 },
    };
    a = await startTestHearth({ ...cluster, roles: ['api'] });
    b = await startTestHearth({ ...cluster, roles: ['api'] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
  });

  it('counts failures on one node against the account on the other', async () => {
    const email = 'shared@example.com';
    const password = 'correct horse battery';
    expect((await a.http('POST', '/users', { token: a.adminKey, body: { projectId: 1, email, password, name: 'S' } })).status).toBe(201);
    const login = (node: TestHearth, pw: string) => node.http('POST', '/auth/user', { body: { projectId: 1, email, password: pw } });
    expect((await login(b, password)).status).toBe(200);
    expect((await login(a, 'wrong')).status).toBe(401);
    expect((await login(b, 'wrong')).status).toBe(401);
    const third = await login(a, 'wrong');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('30');
    // node b saw one of the three failures, yet the account waits there too (Redis counts)
    const onB = await login(b, password);
    expect(onB.status).toBe(429);
    expect(Number(onB.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(onB.headers.get('retry-after'))).toBeLessThanOrEqual(30);
  });
});
