// Bus message types: the realtime fan-out between roles (commands, events, KV changes,
// revocations). Pub/sub may drop a message; anything that must not be lost also goes through the
// Store (events history, the delivery outbox).
import type { EventRecord, KvScope } from '../ports/store.js';

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
  /** a change to a KV store: device stores go to the device's live subscribers */
  kv: { scope: KvScope; ownerId: number; message: KvSyncMessage };
  /** an accepted event, for live watchers (browser stream) */
  event: { projectId: number; deviceId?: number; event: EventRecord };
  /** close live connections authenticated by this credential */
  revoke:
    | { kind: 'device'; deviceId: number }
    | { kind: 'projectKey'; keyId: string }
    | { kind: 'session'; tokenHash: string };
  /** durable work was queued: wake workers now instead of at their next poll */
  work: { queue: string };
  /** a project's smart modules changed: every node drops its cached webhook targets */
  modules: { projectId: number };
}
export type BusTopic = keyof BusMessages;
