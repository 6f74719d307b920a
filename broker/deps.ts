// What createBroker needs: the domain ports, the Presence port, a logger, the per-device MQTT
// publish limiter and a typed slice of configuration (main.ts builds it; tests too).
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Deps } from '../src/domain/deps.js';
import type { Presence } from '../src/ports/presence.js';
import type { RateLimiter } from '../src/ports/rate-limiter.js';
import type { AccessLogRow } from '../src/ports/store.js';

export interface BrokerOptions {
  /** API.md §13: largest MQTT packet, checked from the fixed header before the body is read */
  mqttPacketBytes: number;
  /** API.md §13: largest WebSocket frame (ws maxPayload) */
  wsFrameBytes: number;
  /** API.md §13: a socket that sends no CONNECT within this time is closed */
  connectTimeoutMs: number;
  /** a subscriber whose socket does not drain within this time is dropped (Aedes drainTimeout) */
  drainTimeoutMs: number;
  /** live MQTT + command-WebSocket connections one device may hold */
  connectionsPerDevice: number;
  /** how often WebSocket peers are pinged; one that missed the previous ping is dropped */
  wsPingIntervalMs: number;
  /** a WebSocket peer with more than this many bytes unsent is dropped (it stopped reading) */
  wsBufferedBytes: number;
}

export interface BrokerDeps extends Deps {
  presence: Presence;
  logger: Logger;
  /** per device: API.md §12 "MQTT: a per-device publish rate; excess is dropped and logged" */
  publishLimiter: RateLimiter;
  /** WebSocket upgrades are HTTP requests too (API.md §8); absent when no api role records them */
  accessLog?: { record(row: AccessLogRow): void };
  options: BrokerOptions;
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
}
