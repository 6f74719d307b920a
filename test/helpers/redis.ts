// Redis for tests: the machine's server (HEARTH_TEST_REDIS_URL), a key prefix of this run's own,
// and a cleanup that deletes only keys under that prefix.
import { randomBytes } from 'node:crypto';
import { closeRedis, connectRedis, deleteKeysByPrefix, type RedisClient } from '../../src/adapters/redis/client.js';
import { redisKeys, type RedisKeys } from '../../src/adapters/redis/keys.js';

export const REDIS_URL = process.env.HEARTH_TEST_REDIS_URL;

export function testPrefix(): string {
  return `hearth-test:${process.env.HEARTH_TEST_RUN_ID ?? 'dev'}:${randomBytes(4).toString('hex')}:`;
}

export const deleteKeys = (client: RedisClient, prefix: string): Promise<void> => deleteKeysByPrefix(client, prefix);

export async function redisFixture(url = REDIS_URL!): Promise<{ client: RedisClient; keys: RedisKeys; prefix: string; cleanup(): Promise<void> }> {
  const client = await connectRedis({ url });
  const prefix = testPrefix();
  return {
    client,
    keys: redisKeys(prefix),
    prefix,
    async cleanup() {
      await deleteKeys(client, prefix);
      await closeRedis(client);
    },
  };
}
