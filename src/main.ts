// Composition root: reads configuration, builds every dependency once, starts the roles
// (src/roles/). The only module that reads the environment. `startHearth(config)` is also what
// end-to-end tests call in-process.
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { loadConfig, ConfigError, unknownVariables } from './config/load.js';
import { serverSecret } from './config/secret.js';
import { openFilesReport, readOpenFileLimit } from './config/open-files.js';
import type { Config } from './config/schema.js';
import { systemClock } from './ports/clock.js';
import { createSqlStore } from './adapters/sql/store.js';
import { createRealtime } from './adapters/realtime.js';
import { createSmtpMailer } from './adapters/mail/smtp.js';
import type { Mailer } from './ports/mailer.js';
import {
  createPipelineMetrics,
  registerAdmissionMetrics,
  registerCheckpointMetrics,
  registerCommitMetrics,
  registerPoolMetrics,
  registerRedisMetrics,
} from './adapters/metrics.js';
import { createOutboxMetrics } from './adapters/outbox-metrics.js';
import { createLogger } from './adapters/log/logger.js';
import type { Deps } from './domain/deps.js';
import { devicesOrphaned, devicesRestored } from './domain/presence/index.js';
import { bootstrapIfEmpty } from './domain/project/bootstrap.js';
import { followModuleChanges } from './domain/module/changed.js';
import { createAccessLogRecorder } from './http/access-log.js';
import { createRequestListener } from './http/edge/listener.js';
import { createTrustedProxies, requestClientIp } from './http/client-ip.js';
import { BrokerMetrics } from '../broker/metrics.js';
import type { Broker } from '../broker/index.js';
import { bindListeners, type Listeners } from './listeners/index.js';
import { createApiRole } from './roles/api.js';
import { createBrokerRole } from './roles/broker.js';
import { startWorkerRole } from './roles/worker.js';
import { buildDeps } from './roles/deps.js';

export interface Hearth {
  config: Config;
  deps: Readonly<Deps>;
  /** 0 when plain HTTP is off (HEARTH_HTTP_ENABLED=false) */
  httpPort: number;
  /** MQTT over TCP; 0 when this process has no broker role or it is off */
  mqttPort: number;
  /** HTTPS and WSS; 0 without TLS files */
  httpsPort: number;
  /** MQTT over TLS; 0 without TLS files or broker role */
  mqttsPort: number;
  /** what SIGHUP does: rereads the TLS files (false: they failed, the old certificate stays) */
  reloadTls(): boolean;
  broker?: Broker;
  /** the admin key, when this start created the project */
  adminKey?: string;
  close(): Promise<void>;
}

/**
 * Cluster mode is Redis plus PostgreSQL; a process running only some roles needs both, since its
 * other roles run elsewhere and SQLite cannot be shared between machines.
 */
function checkMode(config: Config): void {
  if (config.redisUrl && !config.databaseUrl) {
    throw new ConfigError('HEARTH_DATABASE_URL: cluster mode (HEARTH_REDIS_URL is set) needs PostgreSQL; set HEARTH_DATABASE_URL=postgres://...');
  }
  // a secret generated into each node's data directory would differ between machines: keys
  // sealed by one node could not be read by another, and webhook keys would not match
  if (config.redisUrl && !config.secret) {
    throw new ConfigError(
      'HEARTH_SECRET: cluster mode (HEARTH_REDIS_URL is set) needs the same secret on every node; set HEARTH_SECRET to one long random value (e.g. `openssl rand -base64 32`)',
    );
  }
}

/**
 * A process started from the command line with only some roles is one node of a cluster: its
 * other roles run in other processes, which only Redis and PostgreSQL connect. (In-process
 * callers such as the benchmarks may split roles inside one process.)
 */
function checkStandaloneRoles(config: Config): void {
  if (config.roles.length < 3 && (!config.redisUrl || !config.databaseUrl)) {
    throw new ConfigError(
      `HEARTH_ROLES=${config.roles.join(',')} runs part of Hearth, which is cluster mode: set HEARTH_REDIS_URL and HEARTH_DATABASE_URL, or run all roles (broker,api,worker)`,
    );
  }
}

async function openStore(config: Config, logger: Logger) {
  try {
    return await createSqlStore({
      url: config.databaseUrl ?? join(config.dataDir, 'hearth.db'),
      schema: config.databaseSchema ?? undefined,
      synchronous: config.sqlite.synchronous,
      cacheBytes: config.sqlite.cacheBytes,
      // a failed pass is tried again after a doubling wait (up to 10 s): a line at most every 10 s
      onCheckpointError: (err) => logger.warn({ err: err.message }, `${err.message} (the connection checkpoints itself meanwhile)`),
    });
  } catch (e) {
    const where = config.databaseUrl ? 'HEARTH_DATABASE_URL' : 'HEARTH_DATA_DIR';
    throw new ConfigError(`${where}: cannot open the database: ${(e as Error).message}`);
  }
}

export async function startHearth(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Hearth> {
  checkMode(config);
  // a half-configured mail server stops start-up before anything opens
  const mailer = mailerOf(config);
  // every port first: one that is taken stops start-up before anything is written (issue: a
  // first start used to create project 1 and print its key, then fail on the MQTT port)
  const listeners = await bindListeners(config, {
    broker: config.roles.includes('broker'),
    logger,
    // a proxy's address carries many clients: not capped as one (src/listeners/gate.ts)
    trustedProxies: createTrustedProxies(config.trustedProxies),
  });
  try {
    return await startRoles(config, logger, listeners, mailer);
  } catch (e) {
    await listeners.close();
    throw e;
  }
}

async function startRoles(config: Config, logger: Logger, listeners: Listeners, mailer: Mailer | undefined): Promise<Hearth> {
  mkdirSync(config.dataDir, { recursive: true });
  const secret = serverSecret(config);
  const store = await openStore(config, logger);
  logStoreOpened(config, store.sql, logger);
  // embedded: in-process bus, presence and limiter; cluster (HEARTH_REDIS_URL): Redis
  const realtime = await createRealtime({
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    rateLimit: config.rateLimit,
    presence: config.presence,
    onError: (err, where) => logger.warn({ err: err.message }, `${where}: ${err.message}`),
  }).catch(async (e) => {
    await store.close();
    throw e;
  });
  if (realtime.redis) logger.info(`connected to Redis at ${redactUrl(realtime.redis.url)}`);
  // /metrics: HTTP, webhooks, broker, the event pipeline, the PostgreSQL pool and Redis
  const metricsRegistry = new Registry();
  if (store.sql.pool) registerPoolMetrics(metricsRegistry, store.sql.pool);
  if (realtime.redis) registerRedisMetrics(metricsRegistry, () => realtime.redis!.client.status === 'ready');
  if (listeners.ports.mqtt || listeners.ports.mqtts) registerAdmissionMetrics(metricsRegistry, () => listeners.admission());
  // every dependency once; each role below gets what it needs from it, and nothing changes it
  const deps = buildDeps(config, {
    store,
    bus: realtime.bus,
    secret,
    node: {
      presence: realtime.presence,
      failures: realtime.rateLimiter.failures,
      pipelineMetrics: createPipelineMetrics(metricsRegistry),
      outboxMetrics: createOutboxMetrics(metricsRegistry, store.commands),
      mailer,
    },
  });
  registerCommitMetrics(metricsRegistry, () => deps.pipeline.commitCounts());
  if (store.sql.checkpoints) registerCheckpointMetrics(metricsRegistry, store.sql.checkpoints.figures);
  const closers: (() => Promise<void> | void)[] = [];
  // closed last of all (closers run in reverse): its summaries due are written while the store is open
  closers.push(() => deps.homelessEvents.close());
  if (mailer) closers.push(() => mailer.close());
  // webhook targets cached per project follow module changes made on other nodes
  closers.push(followModuleChanges({ deps }));

  const boot = await bootstrapIfEmpty({ deps });
  if (boot) {
    const file = join(config.dataDir, 'admin.key');
    writeFileSync(file, boot.adminKey + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    logger.info(`created project ${boot.projectId}; admin key (shown once, also in ${resolve(file)}): ${boot.adminKey}`);
  }
  // embedded mode: no node survives a restart, so nobody is connected yet
  if (!config.redisUrl) await store.devices.markAllOffline(systemClock.now().toISOString());

  if (config.roles.includes('worker')) closers.push(await startWorkerRole(deps, { config, logger, registry: metricsRegistry }));

  // cluster: devices left behind by a broker node that died go offline (Presence heartbeats)
  const presence = realtime.presence;
  presence.onOrphaned?.((ids) => devicesOrphaned({ deps: { ...deps, presence }, input: { deviceIds: ids } }));
  // and those a node wrote back after Redis lost them are connected again
  presence.onRestored?.((ids) => devicesRestored({ deps: { ...deps, presence }, input: { deviceIds: ids } }));
  // behind a reverse proxy: whose X-Forwarded-For names the client (src/http/client-ip.ts)
  const trustedProxies = createTrustedProxies(config.trustedProxies);
  const clientIpOf = trustedProxies && ((req: IncomingMessage) => requestClientIp(req, trustedProxies));
  // HTTP requests and the broker's WebSocket upgrades go to one access log
  const accessLog = createAccessLogRecorder({ store, logger, flushMs: config.accessLog.flushMs, batchSize: config.accessLog.batchSize });
  // the broker exists before the HTTP ports serve, so no upgrade arrives before it can take it
  const brokerRole = config.roles.includes('broker')
    ? await createBrokerRole(deps, {
        config,
        realtime,
        logger,
        accessLog,
        clientIpOf,
        brokerMetrics: new BrokerMetrics(metricsRegistry),
        // a CONNECT that arrived is the broker's to answer: the connect deadline stops (src/listeners/gate.ts)
        connectArrived: (conn) => listeners.received(conn),
      })
    : undefined;
  const broker = brokerRole?.broker;
  if (brokerRole) logOpenFileLimit(logger);
  // every node listens on HTTP (src/roles/api.ts); the ports were bound first (src/listeners):
  // from here they serve the API and the broker
  const app = createApiRole(deps, { config, realtime, logger, accessLog, registry: metricsRegistry, trustedProxies });
  listeners.serve({ request: createRequestListener(app.fetch), upgrade: broker?.handleUpgrade, mqtt: broker?.handleTcp });
  // an accepted CONNECT ends the socket's connect deadline (src/listeners/gate.ts); Aedes emits this only for CONNACK 0
  broker?.aedes.on('connackSent', (_packet, client) => listeners.admit(client.conn));
  closers.push(
    () => listeners.close(),
    () => accessLog.close(),
  );

  // Broker role closed first: its sockets go, their presence is written, then the HTTP servers
  // and the store can close.
  if (brokerRole) {
    closers.push(async () => {
      listeners.stopMqtt();
      await brokerRole.close();
    });
  }
  for (const line of listeners.describe(config.roles.includes('api'))) logger.info(line);

  return {
    config,
    deps,
    httpPort: listeners.ports.http,
    mqttPort: listeners.ports.mqtt,
    httpsPort: listeners.ports.https,
    mqttsPort: listeners.ports.mqtts,
    reloadTls: () => listeners.tls?.reload() ?? false,
    broker,
    adminKey: boot?.adminKey,
    async close() {
      for (const c of closers.reverse()) await c();
      await realtime.close();
      await store.close();
    },
  };
}

/** docs/operations.md#mail: the SMTP mailer when HEARTH_SMTP_URL and HEARTH_MAIL_FROM are both set */
function mailerOf(config: Config): Mailer | undefined {
  if (!config.smtpUrl && !config.mailFrom) return undefined;
  if (!config.smtpUrl || !config.mailFrom) {
    const missing = config.smtpUrl ? 'HEARTH_MAIL_FROM' : 'HEARTH_SMTP_URL';
    throw new ConfigError(`account mail needs both HEARTH_SMTP_URL and HEARTH_MAIL_FROM; ${missing} is not set`);
  }
  return createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom });
}

/** lifecycle lines: which database, and the migrations this start applied (docs/upgrading.md) */
function logStoreOpened(config: Config, sql: { dialect: string; migrated: string[] }, logger: Logger): void {
  const where = config.databaseUrl
    ? `PostgreSQL at ${redactUrl(config.databaseUrl)}${config.databaseSchema ? ` (schema ${config.databaseSchema})` : ''}`
    : `SQLite at ${resolve(config.dataDir, 'hearth.db')}`;
  logger.info(`connected to ${where}`);
  if (sql.migrated.length)
    logger.info(
      { migrations: sql.migrated },
      `applied ${sql.migrated.length} database migration${sql.migrated.length === 1 ? '' : 's'}: ${sql.migrated.join(', ')}`,
    );
}

/** docs/operations.md#open-files: each device connection holds a descriptor; say how many fit, warn when few do */
function logOpenFileLimit(logger: Logger): void {
  const limit = readOpenFileLimit();
  if (!limit) return;
  const report = openFilesReport(limit);
  logger.info({ openFiles: limit }, report.info);
  if (report.warn) logger.warn({ openFiles: limit }, report.warn);
}

/** a URL without its password, for the log */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  // a misspelled setting would otherwise be ignored without a word
  for (const u of unknownVariables(process.env)) {
    logger.warn(`${u.name} is not a Hearth setting and is ignored${u.closest ? `; did you mean ${u.closest}?` : ''}`);
  }
  let hearth: Hearth;
  try {
    checkStandaloneRoles(config);
    hearth = await startHearth(config, logger);
  } catch (e) {
    // configuration and unreachable dependencies: one line naming the setting
    if (e instanceof ConfigError || (e as Error).name === 'RedisUnavailableError') console.error((e as Error).message);
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
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // docs/operations.md#configuration: new TLS handshakes use the files as they are now; open connections stay
  process.on('SIGHUP', () => {
    if (hearth.httpsPort || hearth.mqttsPort) hearth.reloadTls();
    else logger.info('SIGHUP: no TLS files to reload (HEARTH_TLS_CERT_FILE is not set)');
  });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) void main();
