// What createBroker needs: the domain ports, the Presence port, a logger, the per-device MQTT
// publish limiter and a typed slice of configuration (main.ts builds it; tests too).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Deps } from '../src/domain/deps.js';
import type { RateLimiter } from '../src/ports/rate-limiter.js';
import type { MqttSessions } from '../src/ports/mqtt-sessions.js';
import type { AccessLogRow } from '../src/ports/store.js';
import type { BrokerMetrics } from './metrics.js';

export interface BrokerOptions {
  /** docs/api.md#limits: largest MQTT packet, checked from the fixed header before the body is read */
  mqttPacketBytes: number;
  /** docs/api.md#limits: largest WebSocket frame (ws maxPayload) */
  wsFrameBytes: number;
  /** docs/api.md#limits: a socket that sends no CONNECT within this time is closed */
  connectTimeoutMs: number;
  /** a subscriber whose socket does not drain within this time is dropped (Aedes drainTimeout) */
  drainTimeoutMs: number;
  /** live MQTT + command-WebSocket connections one device may hold */
  connectionsPerDevice: number;
  /** how often WebSocket peers are pinged; one that missed the previous ping is dropped */
  wsPingIntervalMs: number;
  /** docs/devices.md#limits: a connection (MQTT over TCP or WebSocket, any WebSocket) with more unsent output is closed */
  connectionOutputBytes: number;
  /** docs/api.md#conventions: JSON nesting allowed in a payload (MQTT, KV WebSocket) */
  jsonDepth: number;
  /** docs/devices.md#mqtt bounds: SUBACK 0x80 past this many filters on one connection */
  maxSubscriptionsPerConnection: number;
  /** persistent (clean session 0) sessions one device may hold; past it the oldest offline one goes */
  maxSessionsPerDevice: number;
  /** QoS 1 packets queued unacknowledged for one persistent session; past it they go at QoS 0 */
  maxQueuedPerSession: number;
  /** an offline persistent session is removed this long after its connection ended */
  sessionExpirySeconds: number;
  /** failed CONNECTs (and bad device keys on WebSocket paths) from one address: first wait, doubled each time */
  authFailureDelayMs: number;
  /** ... up to this */
  authFailureMaxDelayMs: number;
  /**
   * docs/tls.md#client-certificates: `optional`: a device on MQTTS or MQTT over WSS may sign in with a client
   * certificate; `caFile`: HEARTH_TLS_CA_FILE is set, so a chain the TLS layer verified was issued by it
   */
  clientCertificates?: { mode: 'off' | 'optional'; caFile: boolean };
}

export interface BrokerDeps extends Deps {
  logger: Logger;
  /** per device: docs/api.md#errors "MQTT: a per-device publish rate; excess is dropped and logged" */
  publishLimiter: RateLimiter;
  /** WebSocket upgrades are HTTP requests too (docs/operations.md#logs); absent when no api role records them */
  accessLog?: { record(row: AccessLogRow): void };
  options: BrokerOptions;
  /** on the registry /metrics serves (main.ts); absent: counted on a registry nobody reads */
  brokerMetrics?: BrokerMetrics;
  /**
   * cluster mode: Aedes's emitter and persistence on Redis (src/adapters/redis/aedes.ts), so the
   * brokers act as one; absent in embedded mode (Aedes's in-memory defaults)
   */
  aedesShared?: { mq: unknown; persistence: unknown };
  /**
   * the client address of a WebSocket upgrade (HEARTH_TRUSTED_PROXIES: a trusted proxy's
   * X-Forwarded-For); absent: the socket's peer
   */
  clientIpOf?: (req: IncomingMessage) => string | undefined;
  /** the persistent MQTT sessions of every device (in memory, or Redis in cluster mode) */
  mqttSessions: MqttSessions;
  /**
   * an MQTT CONNECT arrived on this connection (before it is authenticated): main.ts stops the
   * listener's connect deadline for it (src/listeners/gate.ts)
   */
  connectArrived?: (conn: Duplex) => void;
}
