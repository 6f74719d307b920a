// Composition root: reads configuration, builds adapters, starts the roles. The only module that
// reads the environment. `startHearth(config)` is also what end-to-end tests call in-process.
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { loadConfig, ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';
import { createSqlStore } from './adapters/sql/store.js';
import { createLocalBus } from './adapters/local/bus.js';
import { createLocalPresence } from './adapters/local/presence.js';
import { createMemoryRateLimiter } from './adapters/local/rate-limiter.js';
import { systemClock } from './ports/clock.js';
import type { Deps } from './domain/deps.js';
import { bootstrapIfEmpty } from './domain/project/bootstrap.js';
import { createApi } from './http/app.js';
import { createAccessLogRecorder } from './http/access-log.js';
import { createHttpMetrics } from './http/metrics.js';

export interface Hearth {
  config: Config;
  deps: Deps;
  httpPort: number;
  /** the admin key, when this start created the project */
  adminKey?: string;
  close(): Promise<void>;
}

/** the server secret: configured, or generated once into the data directory */
function serverSecret(config: Config): string {
  if (config.secret) return config.secret;
  const file = join(config.dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

function listen(server: Server, port: number, host: string, variable: string): Promise<number> {
  return new Promise((res, rej) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') rej(new ConfigError(`${variable}: port ${port} on ${host} is already in use; set ${variable} to a free port`));
      else if (err.code === 'EACCES') rej(new ConfigError(`${variable}: no permission to listen on port ${port}; set ${variable} to a port above 1023`));
      else rej(err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      res((server.address() as AddressInfo).port);
    });
  });
}

export async function startHearth(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Hearth> {
  mkdirSync(config.dataDir, { recursive: true });
  const secret = serverSecret(config);
  const store = await createSqlStore({ url: config.databaseUrl ?? join(config.dataDir, 'hearth.db'), schema: config.databaseSchema ?? undefined });
  const bus = createLocalBus();
  const deps: Deps = {
    store,
    bus,
    clock: systemClock,
    secret,
    limits: config.limits,
    sessionTtlSeconds: config.sessions.ttlSeconds,
    provisioningTtlSeconds: config.provisioning.ttlSeconds,
  };
  const closers: (() => Promise<void> | void)[] = [];

  const boot = await bootstrapIfEmpty(deps);
  if (boot) {
    const file = join(config.dataDir, 'admin.key');
    writeFileSync(file, boot.adminKey + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    logger.info(`created project ${boot.projectId}; admin key (shown once, also in ${resolve(file)}): ${boot.adminKey}`);
  }
  // embedded mode: no node survives a restart, so nobody is connected yet
  if (!config.redisUrl) await store.devices.markAllOffline(systemClock.now().toISOString());

  const presence = createLocalPresence();
  let httpPort = 0;
  if (config.roles.includes('api') || config.roles.includes('broker')) {
    const accessLog = createAccessLogRecorder({ store, logger, flushMs: config.accessLog.flushMs, batchSize: config.accessLog.batchSize });
    const app = createApi({
      ...deps,
      logger,
      rateLimiter: createMemoryRateLimiter(config.rateLimit),
      rateLimitEnabled: config.rateLimit.enabled,
      accessLog,
      metrics: createHttpMetrics(undefined, { defaults: true }),
      bodyLimitBytes: config.limits.httpBodyBytes,
    });
    const server = createAdaptorServer({ fetch: app.fetch }) as Server;
    httpPort = await listen(server, config.http.port, config.host, 'HEARTH_HTTP_PORT');
    logger.info(`HTTP API on http://${config.host}:${httpPort}`);
    closers.push(() => new Promise<void>((r) => server.close(() => r())), () => { server.closeAllConnections(); }, () => accessLog.close());
  }
  closers.push(() => presence.close());

  return {
    config,
    deps,
    httpPort,
    adminKey: boot?.adminKey,
    async close() {
      for (const c of closers.reverse()) await c();
      await bus.close();
      await store.close();
    },
  };
}

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const logger = pino({ level: config.logLevel });
  let hearth: Hearth;
  try {
    hearth = await startHearth(config, logger);
  } catch (e) {
    if (e instanceof ConfigError) console.error(e.message);
    else logger.fatal({ err: e }, 'start-up failed');
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await hearth.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) void main();
