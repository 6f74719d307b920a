// What every part of the broker shares: its ports, this node's live connections and the Aedes
// instance (set once created; the hooks are built before it).
import type { Aedes } from 'aedes';
import type { BrokerDeps } from './deps.js';
import type { LocalConnections } from './presence.js';
import type { KvSockets } from './kv-ws.js';
import type { UserStreams } from './user-stream.js';
import { LogThrottle } from './log-throttle.js';
import type { BrokerMetrics } from './metrics.js';
import type { DropLog } from './drop-log.js';
import type { AuthBackoff } from './auth-backoff.js';
import type { BoundedPersistence } from './bounded-persistence.js';
import type { PersistentSessions } from './persistent-sessions.js';

export interface BrokerContext {
  deps: BrokerDeps;
  /** this broker's id (Aedes id) */
  nodeId: string;
  /** a short random prefix of every connection id this node hands to Presence (unique per node) */
  connectionPrefix: string;
  connections: LocalConnections;
  kvSockets: KvSockets;
  streams: UserStreams;
  /** lines the general log receives at most once per window per key (floods stay out) */
  throttle: LogThrottle;
  metrics: BrokerMetrics;
  /** the process log's sampled line about dropped publishes */
  drops: DropLog;
  aedes: Aedes;
  /** Aedes's persistence with the docs/devices.md#mqtt bounds (set with aedes) */
  persistence: BoundedPersistence;
  /** persistent sessions per device and their expiry (set with aedes) */
  sessions: PersistentSessions;
  /** slows down repeated bad credentials from one address */
  authBackoff: AuthBackoff;
}

export { LogThrottle };
