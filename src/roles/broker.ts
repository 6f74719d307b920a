// The broker role (docs/architecture.md#processes), built by main.ts from the deps it built once: MQTT
// over TCP and TLS, and the WebSocket paths of the HTTP ports. main.ts hands its handlers to the
// bound listeners (src/listeners) and closes it first at shutdown.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Deps } from '../domain/deps.js';
import type { Realtime } from '../adapters/realtime.js';
import type { AccessLogRecorder } from '../http/access-log.js';
import { createMemoryRateLimiter } from '../adapters/local/rate-limiter.js';
import { createBroker, type Broker } from '../../broker/index.js';
import type { BrokerMetrics } from '../../broker/metrics.js';

export interface BrokerRole {
  broker: Broker;
  close(): Promise<void>;
}

export interface BrokerRoleOptions {
  config: Pick<Config, 'limits' | 'mqttRateLimit' | 'broker' | 'mqtt' | 'tls'>;
  realtime: Pick<Realtime, 'presence' | 'mqttSessions' | 'redis'>;
  logger: Logger;
  /** WebSocket upgrades are logged with the HTTP requests */
  accessLog: Pick<AccessLogRecorder, 'record'>;
  clientIpOf: ((req: IncomingMessage) => string | undefined) | undefined;
  brokerMetrics: BrokerMetrics;
  /** an MQTT CONNECT arrived: the listener's connect deadline stops for that socket */
  connectArrived?: (conn: Duplex) => void;
}

export async function createBrokerRole(
  deps: Deps,
  { config, realtime, logger, accessLog, clientIpOf, brokerMetrics, connectArrived }: BrokerRoleOptions,
): Promise<BrokerRole> {
  // cluster: the brokers share Aedes's emitter and persistence through Redis (a client id that
  // connects to another broker is closed here); only Aedes's $SYS traffic crosses nodes there:
  // device subscriptions and handled device publishes never leave the node (adapters/redis/aedes.ts)
  const shared = realtime.redis
    ? (await import('../adapters/redis/aedes.js')).createAedesSharing({
        url: realtime.redis.url,
        prefix: realtime.redis.prefix,
        onError: (err) => logger.warn({ err: err.message }, `redis (MQTT sessions): ${err.message}`),
      })
    : undefined;
  const broker = await createBroker({
    ...deps,
    // the same object as deps.presence (main.ts), here typed as required
    presence: realtime.presence,
    aedesShared: shared,
    mqttSessions: realtime.mqttSessions,
    logger,
    publishLimiter: createMemoryRateLimiter({ perSecond: config.mqttRateLimit.publishesPerSecond, burst: config.mqttRateLimit.burst }),
    accessLog,
    clientIpOf,
    brokerMetrics,
    connectArrived,
    options: {
      mqttPacketBytes: config.limits.mqttPacketBytes,
      wsFrameBytes: config.limits.wsFrameBytes,
      connectTimeoutMs: config.limits.connectTimeoutMs,
      connectionsPerDevice: config.limits.connectionsPerDevice,
      drainTimeoutMs: config.broker.drainTimeoutMs,
      wsPingIntervalMs: config.broker.wsPingIntervalMs,
      connectionOutputBytes: config.limits.connectionOutputBytes,
      jsonDepth: config.limits.jsonDepth,
      maxSubscriptionsPerConnection: config.mqtt.maxSubscriptionsPerConnection,
      maxSessionsPerDevice: config.mqtt.maxSessionsPerDevice,
      maxQueuedPerSession: config.mqtt.maxQueuedPerSession,
      sessionExpirySeconds: config.mqtt.sessionExpirySeconds,
      authFailureDelayMs: config.mqtt.authFailureDelayMs,
      authFailureMaxDelayMs: config.mqtt.authFailureMaxDelayMs,
      clientCertificates: { mode: config.tls.clientCertificates, caFile: !!config.tls.caFile },
    },
  }).catch(async (e) => {
    await shared?.close();
    throw e;
  });
  return {
    broker,
    async close() {
      await broker.close();
      await shared?.close();
    },
  };
}
