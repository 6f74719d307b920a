// The Aedes instance and its options: hooks one per file (hooks/), the limits of docs/api.md#limits and
// the hardening the broker needs (connect timeout, drain timeout).
import { Aedes, type PublishPacket } from 'aedes';
import memoryPersistence from 'aedes-persistence';
import type { BrokerContext } from '../context.js';
import { preConnect, CLIENT_ID_PREFIX_MAX } from './hooks/pre-connect.js';
import { authenticate } from './hooks/authenticate.js';
import { authorizeSubscribe } from './hooks/authorize-subscribe.js';
import { authorizePublish, CONSUMED_TOPIC } from './hooks/authorize-publish.js';
import { onConnackSent, onSubscribed } from './hooks/subscribed.js';
import { brokerLog } from '../general-log.js';
import { PacketTooLargeError } from '../limits/packet-guard.js';
import { sessionOf } from '../session.js';
import { BoundedPersistence } from '../limits/bounded-persistence.js';
import type { BrokerDeps } from '../deps.js';

/** Aedes's persistence with the docs/devices.md#mqtt bounds, on Aedes's in-memory one (embedded) or the shared Redis one (cluster) */
export function boundedPersistence(deps: BrokerDeps): BoundedPersistence {
  // (a CommonJS module: its default import is the factory itself, whatever its types say)
  const inner = deps.aedesShared?.persistence ?? (memoryPersistence as unknown as () => unknown)();
  return new BoundedPersistence(
    inner as ConstructorParameters<typeof BoundedPersistence>[0],
    (client) => sessionOf(client)?.granted,
    // the in-memory one is this node's alone
    !deps.aedesShared,
  );
}

/** the Aedes instance with its limits, not yet listening and without hooks (startAedes adds them) */
export function newAedes(deps: BrokerDeps, nodeId: string, persistence: BoundedPersistence): Aedes {
  const { options } = deps;
  return new Aedes({
    id: nodeId,
    mq: deps.aedesShared?.mq,
    persistence: persistence.aedes as never,
    // docs/api.md#limits: a socket that never sends CONNECT is closed
    connectTimeout: options.connectTimeoutMs,
    // one subscriber that stops reading is dropped instead of holding delivery slots forever
    drainTimeout: options.drainTimeoutMs,
    // MQTT 3.1's 23 characters, plus the device prefix pre-connect.ts adds
    maxClientsIdLength: 23 + CLIENT_ID_PREFIX_MAX,
  });
}

/**
 * A device publish the broker has handled (authorize-publish.ts points it at CONSUMED_TOPIC) ends
 * with its PUBACK: Aedes would still run it through its publish steps (a copy of the packet, the
 * persistence's lookup of offline subscribers and their queues, the emitter's topic match, the
 * `published` hook and `publish` event) for a topic no client can subscribe to and nothing of
 * ours listens on: about 1.5 µs of the main thread's 17 and 1.5 KB of garbage per event (`npm run
 * bench -- ingest`, issue #26). Every other publish (Aedes's own $SYS ones) goes through as
 * before.
 */
function consumedEndHere(aedes: Aedes): void {
  const publish = aedes.publish;
  type Done = (error?: Error | null) => void;
  aedes.publish = function (this: Aedes, packet: PublishPacket, client: unknown, done?: Done): void {
    if (packet.topic !== CONSUMED_TOPIC) return (publish as (...a: unknown[]) => void).call(this, packet, client, done);
    // Aedes's own calls pass the client; its API's two-argument form passes the callback second
    const cb = typeof client === 'function' ? (client as Done) : done;
    cb?.(null);
  } as Aedes['publish'];
}

/** the hooks (one per file, hooks/) and event listeners on ctx.aedes, then it starts (its persistence set up) */
export async function startAedes(ctx: BrokerContext): Promise<void> {
  const { aedes } = ctx;
  const { logger } = ctx.deps;
  // Aedes reads its hooks from the instance on each use
  const arrived = ctx.deps.connectArrived;
  aedes.preConnect = arrived
    ? (client, packet, done) => {
        arrived(client.conn);
        preConnect(client, packet, done);
      }
    : preConnect;
  aedes.authenticate = authenticate(ctx);
  aedes.authorizeSubscribe = authorizeSubscribe(ctx);
  aedes.authorizePublish = authorizePublish(ctx);
  consumedEndHere(aedes);
  aedes.on('subscribe', onSubscribed(ctx));
  // a filter given back no longer counts against the connection's bound
  aedes.on('unsubscribe', (topics, client) => {
    const s = sessionOf(client);
    if (s?.granted) s.granted = s.granted.filter((t) => !topics.includes(t));
  });
  aedes.on('connackSent', onConnackSent(ctx));
  aedes.on('clientError', (client, err) => {
    const s = sessionOf(client);
    logger.debug({ clientId: client.id, err: err.message }, 'MQTT client error');
    // an oversized packet ends the connection: say so where the operator looks
    if (s && err instanceof PacketTooLargeError) {
      brokerLog(ctx, s.device.projectId, s.caller(), 'warn', `MQTT connection of device ${s.device.id} closed: ${err.message}`);
    }
  });
  aedes.on('connectionError', (_client, err) => logger.debug({ err: err.message }, 'MQTT connection error'));
  await aedes.listen();
}
