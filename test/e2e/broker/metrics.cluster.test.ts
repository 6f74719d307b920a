// /metrics in cluster mode (PostgreSQL + Redis): the pool's connections and Redis's health are
// there, beside the broker's series, with the values of the live process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedis, connectRedis } from '../../../src/adapters/redis/client.js';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { deleteKeys, REDIS_URL, testPrefix } from '../../helpers/redis.js';
import { mqttConnect } from './clients.js';

const run = Boolean(testDatabaseUrl && REDIS_URL);
const schema = freshSchemaName();
const prefix = testPrefix();
let t: TestHearth;

beforeAll(async () => {
  if (!run) return;
  t = await startTestHearth({ databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix });
}, 60_000);

afterAll(async () => {
  if (!run) return;
  await t?.close();
  await dropSchema(testDatabaseUrl!, schema);
  const client = await connectRedis({ url: REDIS_URL! });
  await deleteKeys(client, prefix);
  await closeRedis(client);
});

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe.skipIf(!run)('metrics in cluster mode', () => {
  it('show the PostgreSQL pool, Redis up, and a device connected through the shared broker', async () => {
    const d = await t.seedDevice();
    await mqttConnect(t, d);
    const text = await (await fetch(`${t.httpUrl}/metrics`)).text();
    expect(value(text, 'hearth_redis_up')).toBe(1);
    const total = value(text, 'hearth_pg_pool_connections')!;
    const idle = value(text, 'hearth_pg_pool_idle_connections')!;
    expect(total).toBeGreaterThanOrEqual(1);
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(idle).toBeLessThanOrEqual(total);
    expect(value(text, 'hearth_pg_pool_waiting_queries')).toBe(0);
    expect(value(text, 'hearth_broker_connected_devices{transport="mqtt"}')).toBe(1);
    expect(value(text, 'hearth_event_commit_duration_seconds_count')).toBe(1);
  });
});
