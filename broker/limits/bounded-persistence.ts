// Aedes's persistence (in memory, or aedes-persistence-redis in cluster mode) with the bounds of
// docs/devices.md#mqtt enforced where Aedes writes to it. Everything else passes through unchanged.
// - Subscriptions: Aedes stores the WHOLE subscription list of a SUBSCRIBE packet once per filter
//   it grants (handlers/subscribe.js storeSubscriptions), refused filters included; so a session
//   that asked for 5,000 filters kept 5,000 whatever SUBACK said (issue 13 F3), and wrote the
//   list 5,000 times (quadratic). Only the filters authorizeSubscribe granted to that
//   connection are stored, once.
// - Queued QoS 1 packets of a persistent session are counted per client id, with their payload
//   bytes, so deliver.ts can stop queueing past `maxQueuedPerSession` or
//   limits.connectionOutputBytes (docs/devices.md#limits: a client that reads but never acknowledges
//   holds no more than that; counted per broker node: in cluster mode a session that moves to
//   another node starts a fresh count there).
// - dropSession removes one session's subscriptions, queue and QoS 2 state (eviction, expiry).
// - Retained messages: there are none (authorize-publish.ts clears the flag), so none is looked up.
// - A clean session's queue, on the in-memory persistence, when this wrapper counted nothing queued
//   under its id: nothing to read. Aedes reads it on every connect (handlers/connect.js emptyQueue),
//   and the in-memory persistence answers with a stream of a stream of an empty array.
import type { Client } from 'aedes';

/** what this wrapper uses of an Aedes persistence (aedes-persistence's async API) */
interface AedesPersistenceLike {
  setup(broker: unknown): Promise<void>;
  addSubscriptions(client: { id: string }, subs: { topic: string }[]): Promise<void>;
  cleanSubscriptions(client: { id: string }): Promise<unknown>;
  outgoingEnqueue(sub: { clientId: string }, packet: unknown): Promise<void>;
  outgoingEnqueueCombi(subs: { clientId: string }[], packet: unknown): Promise<void>;
  outgoingClearMessageId(client: { id: string }, packet: { messageId?: number }): Promise<unknown>;
  outgoingUpdate(client: { id: string }, packet: { messageId?: number }): Promise<void>;
  outgoingStream(client: { id: string }): AsyncIterable<{ messageId?: number }> | Iterable<{ messageId?: number }>;
  cleanIncoming?(client: { id: string }): Promise<void>;
  createRetainedStreamCombi(patterns: string[]): unknown;
  createRetainedStream(pattern: string): unknown;
}

/**
 * QoS 1 publishes the command outbox writes itself (outbox.ts): never stored here, and their
 * PUBACK goes to the outbox instead of Aedes's queue
 */
export interface OutboxAcks {
  owns(client: { id: string }, messageId: number | undefined): boolean;
  acked(client: { id: string }, messageId: number | undefined): void;
}

/**
 * An empty source for Aedes, as it reads the streams it asks its persistence for: through
 * `pipeline` (an iterable: nothing to iterate) or `.pipe` (ends the destination, as an empty
 * stream would). Aedes 1.2 builds a Readable, a pipe or a pipeline of streams around each one, per
 * connect and per SUBSCRIBE: the fleet bench's connect storm spent about a tenth of its CPU
 * there (issue #25). test/unit/broker/bounded-persistence.test.ts fails if Aedes reads it another way.
 */
export const EMPTY_SOURCE: readonly never[] & { pipe<T extends { end(): unknown }>(dest: T, opts?: { end?: boolean }): T } = Object.freeze(
  Object.assign([] as never[], {
    pipe<T extends { end(): unknown }>(dest: T, opts?: { end?: boolean }): T {
      if (opts?.end !== false) dest.end();
      return dest;
    },
  }),
);

/** the filters granted to a live client (authorize-subscribe.ts keeps them) */
export type GrantedOf = (client: Client) => readonly string[] | undefined;

export class BoundedPersistence {
  /** client id → QoS 1 packets queued for it and not yet acknowledged (this node's count) */
  private readonly queued = new Map<string, number>();
  /** client id → payload bytes of those packets */
  private readonly queuedBytes = new Map<string, number>();
  /** what Aedes gets as its `persistence` */
  readonly aedes: unknown;
  /** the command outbox of this broker (set by createBroker) */
  outbox?: OutboxAcks;

  /**
   * @param local the persistence lives in this process and only this wrapper writes to it (Aedes's
   * in-memory one): what it counts queued is all there is
   */
  constructor(
    private readonly inner: AedesPersistenceLike,
    grantedOf: GrantedOf,
    local = false,
  ) {
    const queued = this.queued;
    const self = this;
    const queuedBytes = this.queuedBytes;
    /** client id → the tail of its subscription writes */
    const chains = new Map<string, Promise<unknown>>();
    /** a SUBSCRIBE's filter list → the filters of it already written */
    const storedOf = new WeakMap<object, Set<string>>();
    const add = (map: Map<string, number>, id: string, n: number) => {
      const v = (map.get(id) ?? 0) + n;
      if (v > 0) map.set(id, v);
      else map.delete(id);
    };
    const sizeOf = (packet: unknown) => (packet as { payload?: { length?: number } } | undefined)?.payload?.length ?? 0;
    const count = (id: string, n: number, packet: unknown) => {
      add(queued, id, n);
      add(queuedBytes, id, n * sizeOf(packet));
      // a cleared packet the persistence no longer knew (no size): bytes go with the last packet
      if (!queued.has(id)) queuedBytes.delete(id);
    };
    const overrides: Partial<AedesPersistenceLike> = {
      // aedes checks that setup is an async function
      async setup(broker) {
        return inner.setup(broker);
      },
      // Aedes calls this once per granted filter, in parallel, each time with the packet's
      // whole list. Stored here once per packet (the list's identity), one call at a time per
      // client: aedes-persistence-redis waits for its broadcast keyed by client and first topic,
      // so two calls of one client in flight leave one waiting forever.
      addSubscriptions(client, subs) {
        const prev = chains.get(client.id) ?? Promise.resolve();
        const next = prev.then(() => {
          const granted = grantedOf(client as Client);
          let done = storedOf.get(subs);
          if (!done) storedOf.set(subs, (done = new Set()));
          // no session (a restore, a test): nothing to filter by
          const kept = subs.filter((s) => (!granted || granted.includes(s.topic)) && !done.has(s.topic));
          for (const s of kept) done.add(s.topic);
          return kept.length ? inner.addSubscriptions(client, kept) : undefined;
        });
        const tail = next.catch(() => undefined);
        chains.set(client.id, tail);
        void tail.then(() => {
          if (chains.get(client.id) === tail) chains.delete(client.id);
        });
        return next;
      },
      outgoingEnqueue(sub, packet) {
        count(sub.clientId, 1, packet);
        return inner.outgoingEnqueue(sub, packet);
      },
      outgoingEnqueueCombi(subs, packet) {
        for (const s of subs) count(s.clientId, 1, packet);
        return inner.outgoingEnqueueCombi(subs, packet);
      },
      async outgoingUpdate(client: { id: string }, packet: { messageId?: number }) {
        if (self.outbox?.owns(client, packet.messageId)) return;
        return inner.outgoingUpdate(client, packet);
      },
      async outgoingClearMessageId(client, packet) {
        if (self.outbox?.owns(client, packet.messageId)) return self.outbox.acked(client, packet.messageId);
        // a clean session's PUBACK (its KV reload, a QoS 1 delivery) acknowledges a packet Aedes
        // wrote straight to it, never one from the store: nothing to clear. Aedes's in-memory
        // store would still keep an empty queue under the client id for good, one per device
        // that ever acknowledged anything (memory per device, issue #25); Redis a round trip.
        if ((client as { clean?: boolean }).clean === true && (packet as { cmd?: string }).cmd === 'puback' && !queued.has(client.id)) return undefined;
        const r = await inner.outgoingClearMessageId(client, packet);
        // the stored packet it cleared (aedes-persistence's contract), for its size
        count(client.id, -1, r ?? packet);
        return r;
      },
      // a clean session's packets would be cleared, not sent (emptyQueue): when none is queued,
      // Aedes gets nothing to read instead of a stream of the in-memory queue (issue #25). Shared
      // persistence (Redis): other nodes may have queued under this id
      outgoingStream(client) {
        if (local && (client as { clean?: boolean }).clean === true && !queued.has(client.id)) return EMPTY_SOURCE;
        return inner.outgoingStream(client);
      },
      // no retained message is ever stored: every device publish is handled and consumed with its
      // retain flag cleared (authorize-publish.ts), and the broker's own writes go to its clients
      // (deliver.ts). Aedes still looks each granted filter of every SUBSCRIBE up: in cluster mode
      // a Redis HGET each, two per connect (issue #25)
      createRetainedStreamCombi: () => EMPTY_SOURCE,
      createRetainedStream: () => EMPTY_SOURCE,
    };
    this.aedes = new Proxy(inner, {
      get(target, prop, receiver) {
        if (Object.prototype.hasOwnProperty.call(overrides, prop)) return overrides[prop as keyof AedesPersistenceLike];
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }

  /** QoS 1 packets queued for this client id and not acknowledged */
  queuedOf(clientId: string): number {
    return this.queued.get(clientId) ?? 0;
  }

  /** payload bytes of those packets */
  queuedBytesOf(clientId: string): number {
    return this.queuedBytes.get(clientId) ?? 0;
  }

  /** removes everything Aedes keeps of one (offline) session */
  async dropSession(clientId: string): Promise<void> {
    const client = { id: clientId };
    // subscriptions (aedes-persistence-redis also drops the queue with the last one)
    await this.inner.cleanSubscriptions(client);
    // the in-memory persistence keeps the queue apart: clear it packet by packet (a packet
    // still without a message id is matched as such)
    const left: { messageId?: number }[] = [];
    for await (const p of this.inner.outgoingStream(client)) left.push(p);
    for (const p of left) await this.inner.outgoingClearMessageId(client, p);
    await this.inner.cleanIncoming?.(client);
    this.queued.delete(clientId);
    this.queuedBytes.delete(clientId);
  }
}
