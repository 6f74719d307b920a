// The Bus port: realtime fan-out between roles and nodes (commands, events, KV changes,
// revocations). Adapters: src/adapters/local (one process), src/adapters/redis (pub/sub).
// Delivery is at most once: never the only copy of anything that must not be lost (events
// history and the delivery outbox go through the Store). The message types live here, with the
// port that carries them, as the Store's record types live in store.ts.
import type { EventRecord, KvScope } from './store.js';

export interface DeviceCommand {
  action: string;
  parameters: Record<string, unknown>;
}

/** docs/devices.md#kv-sync sync messages as sent to devices */
export type KvSyncMessage =
  | { action: 'reload'; rev: number; numItems: number; items: { key: string; value: unknown; modificationTime: string }[] }
  | { action: 'set'; rev: number; key: string; value: unknown }
  | { action: 'delete'; rev: number; key: string };

export interface BusMessages {
  /** deliver to every live connection of the device, on any node */
  command: { deviceId: number; command: DeviceCommand };
  /** the device's command outbox has new commands: the node holding its connection sends them (docs/concepts.md#command-outbox) */
  outbox: { deviceId: number };
  /** a change to a KV store: device stores go to the device's live subscribers */
  kv: { scope: KvScope; ownerId: number; message: KvSyncMessage };
  /** an accepted event, for live watchers (browser stream) */
  event: { projectId: number; deviceId?: number; event: EventRecord };
  /** close live connections authenticated by this credential */
  revoke:
    | { kind: 'device'; deviceId: number }
    | { kind: 'projectKey'; keyId: string }
    | { kind: 'session'; tokenHash: string }
    // docs/tls.md#client-certificates: connections signed in with that certificate close
    | { kind: 'deviceCertificate'; deviceId: number; fingerprint: string };
  /** durable work was queued: wake workers now instead of at their next poll */
  work: { queue: string };
  /** a project's smart modules changed: every node drops its cached webhook targets */
  modules: { projectId: number };
}
export type BusTopic = keyof BusMessages;

export type BusHandler<T extends BusTopic> = (msg: BusMessages[T]) => void;

/**
 * What an adapter that publishes at once (the in-process bus) answers every publish: one promise,
 * settled. A caller on the event path takes it as done without a turn of the microtask queue to
 * wait for it (domain/event/emit.ts: two turns and about 300 bytes of garbage per event, issue #26).
 */
export const PUBLISHED: Promise<void> = Promise.resolve();

export interface Bus {
  /** resolves once published (Redis: sent to the server); PUBLISHED when that is already so */
  publish<T extends BusTopic>(topic: T, msg: BusMessages[T]): Promise<void>;
  /** returns the function that unsubscribes */
  subscribe<T extends BusTopic>(topic: T, handler: BusHandler<T>): () => void;
  /** resolves once every subscription made so far is live (Redis subscribes asynchronously) */
  ready?(): Promise<void>;
  close(): Promise<void>;
}
