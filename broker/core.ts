// The part of the broker's shared state that the per-node registries (live/kv-watchers.ts,
// user-streams.ts, persistent-sessions.ts) and the helpers they call (live/send.ts,
// general-log.ts) need. It names none of those registries, so they can take it without an
// import cycle through context.ts, which adds them.
import type { Aedes } from 'aedes';
import type { BrokerDeps } from './deps.js';
import type { NodeConnections } from './connections.js';
import type { LogThrottle } from '../src/domain/log-throttle.js';
import type { BrokerMetrics } from './metrics.js';
import type { DropLog } from './limits/drop-log.js';
import type { AuthBackoff } from './limits/auth-backoff.js';
import type { BoundedPersistence } from './limits/bounded-persistence.js';

export interface BrokerCore {
  deps: BrokerDeps;
  /** this broker's id (Aedes id) */
  nodeId: string;
  /** a short random prefix of every connection id this node hands to Presence (unique per node) */
  connectionPrefix: string;
  connections: NodeConnections;
  /** lines the general log receives at most once per window per key (floods stay out) */
  throttle: LogThrottle;
  metrics: BrokerMetrics;
  /** the process log's sampled line about dropped publishes */
  drops: DropLog;
  aedes: Aedes;
  /** Aedes's persistence with the docs/devices.md#mqtt bounds */
  persistence: BoundedPersistence;
  /** slows down repeated bad credentials from one address */
  authBackoff: AuthBackoff;
}
