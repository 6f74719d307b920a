// What the admin CLI works on: the server's own data (HEARTH_DATA_DIR / HEARTH_DATABASE_URL, read
// through loadConfig like the server) and the same server secret, so device keys it seals can be
// read back by the server. It acts as an admin key of the project it is told about.
// Loaded only by a command that needs the database; the Redis client only in cluster mode.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../src/config/schema.js';
import type { Bus } from '../../src/ports/bus.js';
import type { Deps } from '../../src/domain/deps.js';
import type { Caller } from '../../src/domain/caller.js';
import type { Reason } from '../../src/domain/errors.js';

export interface AdminContext {
  config: Config;
  deps: Readonly<Deps>;
  /** an admin caller of an existing project (PROJECT_NOT_FOUND otherwise) */
  adminOf(projectId: number): Promise<Caller>;
  /** the domain's AppError, for a command to throw */
  appError(reason: Reason, data?: Record<string, unknown>): Promise<Error>;
  close(): Promise<void>;
}

export async function loadAdminConfig(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const { loadConfig } = await import('../../src/config/load.js');
  return loadConfig(env);
}

export async function openContext(config: Config): Promise<AdminContext> {
  mkdirSync(config.dataDir, { recursive: true });
  const [{ serverSecret }, { createSqlStore }, { AppError }] = await Promise.all([
    import('../../src/config/secret.js'),
    import('../../src/adapters/sql/store.js'),
    import('../../src/domain/errors.js'),
  ]);
  // a one-shot process: no read cache (it would start a change feed for nothing), no access-log
  // thread (a thread's start costs more than the CLI's whole command)
  const store = await createSqlStore({
    url: config.databaseUrl ?? join(config.dataDir, 'hearth.db'),
    schema: config.databaseSchema ?? undefined,
    readCache: false,
    threads: false,
  });
  // cluster mode: the cluster's bus, so a revocation or a deleted device closes live connections
  // on every node as the API's would. Embedded mode: a bus of our own; a running server refuses
  // the credential from its next request, and its open connections stay until they end (README).
  // (only the bus: the CLI is not a node, it joins no presence)
  let closeRedis: (() => Promise<void>) | undefined;
  let bus: Bus;
  if (config.redisUrl) {
    const [{ closeRedis: quit, connectRedis }, { createRedisBus }, { redisKeys }, { redisUnavailable }] = await Promise.all([
      import('../../src/adapters/redis/client.js'),
      import('../../src/adapters/redis/bus.js'),
      import('../../src/adapters/redis/keys.js'),
      import('../../src/adapters/realtime.js'),
    ]);
    let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
    try {
      redis = await connectRedis({ url: config.redisUrl, onError: (e) => console.error(`redis: ${e.message}`) });
      bus = await createRedisBus({ client: redis, keys: redisKeys(config.redisPrefix), onError: (e) => console.error(`redis bus: ${e.message}`) });
    } catch (e) {
      if (redis) await quit(redis);
      await store.close();
      throw redisUnavailable(config.redisUrl, e);
    }
    closeRedis = () => quit(redis!);
  } else bus = (await import('../../src/adapters/local/bus.js')).createLocalBus();
  // the server's own builder (src/roles/deps.ts), without what only a server node has
  const { buildDeps } = await import('../../src/roles/deps.js');
  const deps = buildDeps(config, { store, bus, secret: serverSecret(config) });
  return {
    config,
    deps,
    async adminOf(projectId) {
      if (!(await store.projects.get(projectId))) throw new AppError('PROJECT_NOT_FOUND', { projectId });
      return { type: 'project key', projectId, keyId: 'admin-cli', keyName: 'admin CLI', scopes: ['admin'] };
    },
    appError: async (reason, data) => new AppError(reason, data),
    async close() {
      await bus.close();
      await closeRedis?.();
      await store.close();
    },
  };
}
