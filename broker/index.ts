// createBroker(deps): the broker role (docs/architecture.md#processes). It builds, it does not listen: main.ts
// hands it TCP sockets (handleTcp) and HTTP upgrade requests (handleUpgrade), and closes it.
// A CONNECT: Aedes's preConnect (namespace the client id), then authenticate runs CONNECT_STEPS
// (hooks/authenticate.ts: credentials, connection cap, session, persistent session, presence);
// each SUBSCRIBE: authorizeSubscribe (ACL, QoS ≤ 1), then subscribed (kv reload, command outbox).
// A device publish: authorizePublish runs PUBLISH_STEPS (hooks/authorize-publish.ts: rate
// limit, topic ACL, handler by topic kind), then consumes the packet.
//   bus → deliver.ts → this node's MQTT, command, KV and event-stream sockets
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Aedes } from 'aedes';
import type { BrokerDeps } from './deps.js';
import type { BrokerContext } from './context.js';
import type { BrokerCore } from './core.js';
import { Registry } from 'prom-client';
import { LogThrottle } from '../src/domain/log-throttle.js';
import { BrokerMetrics } from './metrics.js';
import { DropLog } from './limits/drop-log.js';
import { AuthBackoff } from './limits/auth-backoff.js';
import { NodeConnections } from './connections.js';
import { KvWatchers } from './live/kv-watchers.js';
import { UserStreams } from './live/user-streams.js';
import { boundedPersistence, newAedes, startAedes } from './mqtt/aedes.js';
import { PersistentSessions } from './live/persistent-sessions.js';
import { startDelivery } from './deliver.js';
import { OutboxSender } from './live/outbox.js';
import { tcpHandler } from './transports/tcp.js';
import { createWebSockets, upgradeRouter } from './transports/ws.js';

export type { BrokerDeps, BrokerOptions } from './deps.js';

export interface Broker {
  handleTcp(socket: Socket): void;
  /** true when the request was a WebSocket path of the broker (it then owns the socket) */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** live device connections on this node (MQTT and command WebSocket) */
  readonly connectionCount: number;
  readonly aedes: Aedes;
  /** removes the persistent sessions offline since before `now` minus their lifetime (runs on a timer too); answers how many */
  sweepSessions(now?: number): Promise<number>;
  /** closes every connection, then waits until their presence is written */
  close(): Promise<void>;
}

export async function createBroker(deps: BrokerDeps): Promise<Broker> {
  const metrics = deps.brokerMetrics ?? new BrokerMetrics(new Registry());
  const nodeId = randomUUID();
  const persistence = boundedPersistence(deps);
  const core: BrokerCore = {
    deps,
    nodeId,
    connectionPrefix: randomBytes(6).toString('base64url'),
    connections: new NodeConnections(deps, metrics),
    throttle: new LogThrottle(10_000),
    metrics,
    drops: new DropLog(deps.logger, 10_000),
    aedes: newAedes(deps, nodeId, persistence),
    persistence,
    authBackoff: new AuthBackoff({ baseMs: deps.options.authFailureDelayMs, maxMs: deps.options.authFailureMaxDelayMs }),
  };
  const outbox = new OutboxSender(core);
  persistence.outbox = outbox;
  const ctx: BrokerContext = {
    ...core,
    kvWatchers: new KvWatchers(),
    streams: new UserStreams(),
    sessions: new PersistentSessions(core, deps.mqttSessions, persistence, {
      maxSessionsPerDevice: deps.options.maxSessionsPerDevice,
      sessionExpirySeconds: deps.options.sessionExpirySeconds,
    }),
    outbox,
  };
  await startAedes(ctx);
  ctx.sessions.start();
  const sockets = createWebSockets(ctx);
  const stopDelivery = startDelivery(ctx);
  let closing: Promise<void> | undefined;

  return {
    handleTcp: tcpHandler(ctx),
    handleUpgrade: upgradeRouter(ctx, sockets),
    get connectionCount() {
      return ctx.connections.size;
    },
    aedes: ctx.aedes,
    sweepSessions: (now) => ctx.sessions.sweep(now),
    close() {
      closing ??= (async () => {
        stopDelivery();
        ctx.sessions.stop();
        sockets.close();
        await new Promise<void>((resolve) => ctx.aedes.close(() => resolve()));
        // sockets report their end asynchronously; let them, then wait for presence writes
        await new Promise((r) => setImmediate(r));
        await ctx.connections.settled();
        await ctx.outbox.settled();
      })();
      return closing;
    },
  };
}
