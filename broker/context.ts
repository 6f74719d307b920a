// What every part of the broker shares: its ports, this node's live connections and the Aedes
// instance (BrokerCore), plus the registries of this node's WebSocket peers and MQTT sessions,
// which themselves see only BrokerCore (core.ts). createBroker builds it whole before Aedes starts.
import type { BrokerCore } from './core.js';
import type { KvWatchers } from './live/kv-watchers.js';
import type { UserStreams } from './live/user-streams.js';
import type { PersistentSessions } from './live/persistent-sessions.js';
import type { OutboxSender } from './live/outbox.js';

export interface BrokerContext extends BrokerCore {
  kvWatchers: KvWatchers;
  streams: UserStreams;
  /** persistent sessions per device and their expiry */
  sessions: PersistentSessions;
  /** the command outbox on this node's connections (docs/concepts.md#command-outbox) */
  outbox: OutboxSender;
}
