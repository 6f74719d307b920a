// What every part of the broker shares: its ports, this node's live connections and the Aedes
// instance (set once created; the hooks are built before it), plus the registries of this
// node's WebSocket peers and MQTT sessions, which themselves see only BrokerCore (core.ts).
import type { BrokerCore } from './core.js';
import type { KvWatchers } from './live/kv-watchers.js';
import type { UserStreams } from './live/user-streams.js';
import type { PersistentSessions } from './live/persistent-sessions.js';
import type { OutboxSender } from './live/outbox.js';

export interface BrokerContext extends BrokerCore {
  kvWatchers: KvWatchers;
  streams: UserStreams;
  /** persistent sessions per device and their expiry (set with aedes) */
  sessions: PersistentSessions;
  /** the command outbox on this node's connections (docs/concepts.md#command-outbox) */
  outbox: OutboxSender;
}
