// Key-value stores of devices and homes (docs/devices.md#kv-sync): each store has a revision that
// grows by one per change, which devices use to order the sync messages they receive.

export type KvScope = 'device' | 'home';
export interface KvItem {
  key: string;
  value: unknown;
  modificationTime: string;
}
export interface KvChange {
  rev: number;
}

/**
 * A new key was refused: its store already holds `maxKeys` keys. Thrown by the adapter (the
 * transaction it ran in rolls back, the rev does not move); the domain names the reason users see.
 */
export class KvKeyLimitError extends Error {
  override name = 'KvKeyLimitError';
  constructor(readonly maxKeys: number) {
    super(`the store already holds ${maxKeys} keys`);
  }
}

/**
 * A write was refused: the store's `reload` message would exceed `maxBytes` (docs/devices.md#limits).
 * Thrown by the adapter inside the write's transaction, like KvKeyLimitError.
 */
export class KvStoreBytesError extends Error {
  override name = 'KvStoreBytesError';
  constructor(
    readonly maxBytes: number,
    readonly bytes: number,
  ) {
    super(`the store would serialise to ${bytes} bytes; the limit is ${maxBytes}`);
  }
}

export interface KvRepo {
  list(scope: KvScope, ownerId: number, keyPrefix?: string): Promise<{ rev: number; items: KvItem[] }>;
  get(scope: KvScope, ownerId: number, key: string): Promise<KvItem | undefined>;
  /**
   * insert or replace; refuses a new key beyond maxKeys with KvKeyLimitError and, when maxBytes
   * is given, a write after which the store's `reload` message would pass it with KvStoreBytesError
   */
  set(scope: KvScope, ownerId: number, key: string, value: unknown, time: string, maxKeys: number, maxBytes?: number): Promise<KvChange>;
  /** undefined when the key did not exist */
  delete(scope: KvScope, ownerId: number, key: string): Promise<KvChange | undefined>;
  /** everything of one store, when its owner is deleted */
  drop(scope: KvScope, ownerId: number): Promise<void>;
}
