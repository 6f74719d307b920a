// What the admin CLI works on: the server's own data (HEARTH_DATA_DIR / HEARTH_DATABASE_URL, read
// through loadConfig like the server) and the same server secret, so device keys it seals can be
// read back by the server. It acts as an admin key of the project it is told about.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { serverSecret } from '../../src/config/secret.js';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import { createLocalBus } from '../../src/adapters/local/bus.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/adapters/redis/client.js';
import { createRedisBus } from '../../src/adapters/redis/bus.js';
import { redisKeys } from '../../src/adapters/redis/keys.js';
import { redisUnavailable } from '../../src/adapters/realtime.js';
import type { Bus } from '../../src/ports/bus.js';
import { systemClock } from '../../src/ports/clock.js';
import type { Deps } from '../../src/domain/deps.js';
import type { Caller } from '../../src/domain/auth/caller.js';
import { AppError } from '../../src/domain/errors.js';

export interface AdminContext {
  deps: Deps;
  /** an admin caller of an existing project (PROJECT_NOT_FOUND otherwise) */
  adminOf(projectId: number): Promise<Caller>;
  close(): Promise<void>;
}

export async function openContext(env: NodeJS.ProcessEnv = process.env): Promise<AdminContext> {
  const config = loadConfig(env);
  mkdirSync(config.dataDir, { recursive: true });
  const store = await createSqlStore({ url: config.databaseUrl ?? join(config.dataDir, 'hearth.db'), schema: config.databaseSchema ?? undefined });
  // cluster mode: the cluster's bus, so a revocation closes the credential's live connections on
  // every node as the API's would. Embedded mode: a bus of our own; a running server refuses the
  // credential from its next request, and its open connections stay until they end (README).
  // (only the bus: the CLI is not a node, it joins no presence)
  let redis: RedisClient | undefined;
  let bus: Bus;
  if (config.redisUrl) {
    try {
      redis = await connectRedis({ url: config.redisUrl, onError: (e) => console.error(`redis: ${e.message}`) });
      bus = await createRedisBus({ client: redis, keys: redisKeys(config.redisPrefix), onError: (e) => console.error(`redis bus: ${e.message}`) });
    } catch (e) {
      if (redis) await closeRedis(redis);
      await store.close();
      throw redisUnavailable(config.redisUrl, e);
    }
  } else bus = createLocalBus();
  const deps: Deps = {
    store,
    bus,
    clock: systemClock,
    secret: serverSecret(config),
    limits: config.limits,
    sessionTtlSeconds: config.sessions.ttlSeconds,
    provisioningTtlSeconds: config.provisioning.ttlSeconds,
  };
  return {
    deps,
    async adminOf(projectId) {
      if (!(await store.projects.get(projectId))) throw new AppError('PROJECT_NOT_FOUND', { projectId });
      return { type: 'project key', projectId, keyId: 'admin-cli', keyName: 'admin CLI', scopes: ['admin'] };
    },
    async close() {
      await bus.close();
      if (redis) await closeRedis(redis);
      await store.close();
    },
  };
}
