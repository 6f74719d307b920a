// What every part of the broker shares: its ports, this node's live connections and the Aedes
// instance (BrokerCore), plus the registries of this node's WebSocket peers and MQTT sessions,
// which themselves see only BrokerCore (core.ts). createBroker builds it whole before Aedes starts.
import type { BrokerCore } from './core.js';
import type { KvSockets } from './kv-sockets.js';
import type { UserStreams } from './user-streams.js';
import { LogThrottle } from './log-throttle.js';
import type { PersistentSessions } from './persistent-sessions.js';
import type { OutboxSender } from './outbox.js';

export interface BrokerContext extends BrokerCore {
  kvSockets: KvSockets;
  streams: UserStreams;
  /** persistent sessions per device and their expiry */
  sessions: PersistentSessions;
  /** the command outbox on this node's connections (docs/concepts.md#command-outbox) */
  outbox: OutboxSender;
}

export { LogThrottle };
