// Cluster mode: several brokers act as one broker (docs/architecture.md#processes). Aedes's own emitter and
// persistence go through Redis, with mqemitter-redis and aedes-persistence-redis 12:
// - the emitter carries Aedes's `$SYS` traffic between nodes, above all `$SYS/<node>/new/clients`,
//   on which a node closes its connection of a client id that connected elsewhere
//   (MQTT-3.1.4-2 across brokers), and the subscription broadcasts of the persistence;
// - the persistence keeps sessions (subscriptions of clean=false clients), wills and retained
//   messages where every node sees them.
// Commands, KV changes and revocations do not take this path: they cross nodes on the Bus and each
// node writes to its own connections (broker/deliver.ts).
// So only Aedes's `$SYS` topics go through Redis (sharedTopic): a device's subscriptions to its
// command and kv topics stay in an in-process emitter (nothing is ever emitted on them through
// Aedes: device publishes are consumed where they arrive, authorize-publish.ts), as do the
// `$SYS/<node>/new/subscribes` and `unsubscribes` notices, which no node listens to. Through Redis
// they cost every connect two SUBSCRIBEs and a PUBLISH, and every disconnect two UNSUBSCRIBEs
// and a PUBLISH, with the SUBACK waiting for the SUBSCRIBEs (the fleet bench counted 23 Redis
// commands per connect, issue #25).
//
// Redis pub/sub channels are global to a Redis server (database numbers do not separate them),
// so every MQTT topic is carried on a channel under Hearth's prefix, and listeners see the topic
// without it: two clusters (or two test runs) on one Redis never see each other's clients.
// Persistence keys get the same prefix through ioredis's keyPrefix.
import { Redis } from 'ioredis';
import MQEmitter from 'mqemitter';
import MQEmitterRedis from 'mqemitter-redis';
import createPersistence from 'aedes-persistence-redis';

type Message = { topic: string } & Record<string, unknown>;
type Listener = (message: Message, done: () => void) => void;
type Callback = (err?: Error) => void;

/** what Aedes needs of an emitter (its `mq` option) */
export interface AedesEmitter {
  readonly current: number;
  readonly concurrency: number;
  on(topic: string, listener: Listener, done?: () => void): this;
  emit(message: Message, done?: Callback): void;
  removeListener(topic: string, listener: Listener, done?: () => void): void;
  close(done: () => void): void;
}

export interface AedesSharingOptions {
  url: string;
  /** Hearth's Redis prefix (config `redisPrefix`) */
  prefix: string;
  /** which topics go through Redis (the others stay in the node): sharedTopic unless told (tests) */
  shares?: (topic: string) => boolean;
  onError: (err: Error) => void;
}

export interface AedesSharing {
  mq: AedesEmitter;
  /** an aedes-persistence-redis instance (Aedes's `persistence` option) */
  persistence: unknown;
  /** after Aedes has closed: ends the persistence's connection */
  close(): Promise<void>;
}

/** the notices Aedes publishes on every SUBSCRIBE and UNSUBSCRIBE packet; nobody listens to them */
const SUBSCRIBE_NOTICE = /^\$SYS\/[^/]+\/new\/(un)?subscribes$/;

/**
 * the topics Aedes needs on every node: its `$SYS` traffic (a client id taken over on another
 * node, broker heartbeats, the persistence's subscription broadcasts), but for the subscribe notices
 */
export function sharedTopic(topic: string): boolean {
  return topic.startsWith('$SYS/') && !SUBSCRIBE_NOTICE.test(topic);
}

/** MQTT wildcards and Redis glob characters cannot be part of the channel prefix */
export function channelPrefix(prefix: string): string {
  return `${prefix.replace(/[/+#*?[\]\\]/g, '_')}mqtt/`;
}

/**
 * The shared topics on prefixed Redis channels, listeners getting the topic as it was published;
 * the others on an in-process emitter of this node
 */
export class PrefixedEmitter implements AedesEmitter {
  /** listener → topic → the wrappers registered for it (one per `on`) */
  private readonly wrappers = new Map<Listener, Map<string, Listener[]>>();
  private closed = false;

  constructor(
    private readonly inner: MQEmitterRedis.MQEmitterRedis,
    private readonly prefix: string,
    private readonly local: MQEmitter.MQEmitter,
    private readonly shares: (topic: string) => boolean = sharedTopic,
  ) {}

  get current(): number {
    return this.inner.current + this.local.current;
  }

  get concurrency(): number {
    return (this.inner as unknown as { concurrency: number }).concurrency;
  }

  on(topic: string, listener: Listener, done?: () => void): this {
    const shared = this.shares(topic);
    const cut = this.prefix.length;
    const self = this;
    // listeners are called with this emitter as `this` (mqemitter's contract), either way
    const wrapped: Listener = shared
      ? function (message, cb) {
          listener.call(self, { ...message, topic: message.topic.slice(cut) }, cb);
        }
      : function (message, cb) {
          listener.call(self, message, cb);
        };
    let byTopic = this.wrappers.get(listener);
    if (!byTopic) this.wrappers.set(listener, (byTopic = new Map()));
    const list = byTopic.get(topic);
    if (list) list.push(wrapped);
    else byTopic.set(topic, [wrapped]);
    if (shared) this.inner.on(this.prefix + topic, wrapped, done);
    else this.local.on(topic, wrapped as never, done);
    return this;
  }

  emit(message: Message, done?: Callback): void {
    if (this.closed) return done?.(new Error('the Redis emitter is closed'));
    if (!this.shares(message.topic)) return void this.local.emit(message as never, done);
    this.inner.emit({ ...message, topic: this.prefix + message.topic }, done);
  }

  removeListener(topic: string, listener: Listener, done?: () => void): void {
    const byTopic = this.wrappers.get(listener);
    const list = byTopic?.get(topic);
    const wrapped = list?.pop();
    if (list && !list.length) byTopic!.delete(topic);
    if (byTopic && !byTopic.size) this.wrappers.delete(listener);
    // after close the connections are gone: nothing is left to unsubscribe
    if (!wrapped || this.closed) {
      if (done) setImmediate(done);
      return;
    }
    if (this.shares(topic)) this.inner.removeListener(this.prefix + topic, wrapped, done);
    else this.local.removeListener(topic, wrapped as never, done);
  }

  close(done: () => void): void {
    if (this.closed) return void setImmediate(done);
    this.closed = true;
    this.local.close(() => this.inner.close(done));
  }
}

function connection(url: string, name: string, onError: (err: Error) => void, keyPrefix?: string): Redis {
  const conn = new Redis(url, {
    keyPrefix,
    connectionName: name,
    // a restarted Redis is picked up within about 2 s, as with the other clients
    retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
  });
  conn.on('error', (err: Error) => onError(err));
  return conn;
}

/** Aedes's emitter on Redis: two connections of its own (publisher, subscriber) */
export function createRedisEmitter(opts: AedesSharingOptions, emitterOptions: MQEmitterRedis.MQEmitterOptions = {}): PrefixedEmitter {
  const inner = MQEmitterRedis({
    ...emitterOptions,
    subConn: connection(opts.url, 'hearth-aedes-sub', opts.onError),
    pubConn: connection(opts.url, 'hearth-aedes-pub', opts.onError),
  });
  (inner as unknown as { state: import('node:events').EventEmitter }).state.on('error', (err: Error) => opts.onError(err));
  return new PrefixedEmitter(inner, channelPrefix(opts.prefix), MQEmitter(emitterOptions), opts.shares);
}

type WillOwner = { id: string; brokerId?: string };

/**
 * Aedes's persistence on Redis, its keys under `<prefix>aedes:`.
 * aedes-persistence-redis keys a will by the broker that stored it (putWill: its own id), and
 * finds it again by `client.brokerId` (delWill). Aedes's CONNECT removes a client's previous will
 * with its live client, which has no `brokerId`: a key nothing ever writes, read and deleted for
 * nothing, three Redis commands on every connect (LREM, GET, DEL; issue #25). That call is
 * answered here as the persistence would answer it (no will); wills found by broker, at a
 * client's close or by Aedes's will sweep, still go to Redis.
 */
export function createRedisPersistence(opts: Pick<AedesSharingOptions, 'url' | 'prefix' | 'onError'>): { destroy(): Promise<void> } {
  const conn = connection(opts.url, 'hearth-aedes-persistence', opts.onError, `${opts.prefix}aedes:`);
  const persistence = createPersistence({ conn }) as { destroy(): Promise<void>; delWill(client: WillOwner): Promise<unknown> };
  const delWill = persistence.delWill.bind(persistence);
  persistence.delWill = async (client) => (client.brokerId === undefined ? null : delWill(client));
  return persistence;
}

export function createAedesSharing(opts: AedesSharingOptions): AedesSharing {
  const mq = createRedisEmitter(opts);
  const persistence = createRedisPersistence(opts);
  let closing: Promise<void> | undefined;
  return {
    mq,
    persistence,
    close() {
      // Aedes closes its emitter itself, not the persistence; closing twice is harmless
      closing ??= persistence
        .destroy()
        .catch((err: Error) => opts.onError(err))
        .then(() => new Promise<void>((resolve) => mq.close(resolve)));
      return closing;
    },
  };
}
