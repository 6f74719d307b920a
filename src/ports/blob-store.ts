// The BlobStore port: opaque byte objects under string keys (ARCHITECTURE "BlobStore": uploaded
// log files, report outputs). Adapter: src/adapters/fs/blob-store.ts (files in the data
// directory; in cluster mode a directory every node mounts).
//
// Keys are paths of `[A-Za-z0-9._-]` segments joined by `/` (`logs/<id>/parts/3`); anything
// else is refused by the adapter, so a key can never escape the store's root.
// Writes are atomic: a reader sees the old object, the new one, or none, never a partial one.

/** a write went past its `maxBytes`: nothing was kept */
export class BlobTooLargeError extends Error {
  override name = 'BlobTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
  }
}

export type BlobSource = Uint8Array | string | AsyncIterable<Uint8Array | string>;

export interface BlobInfo {
  size: number;
}

export interface BlobStore {
  /** stores the bytes under `key` (replacing any), refusing more than `maxBytes`; returns the size */
  put(key: string, data: BlobSource, opts?: { maxBytes?: number }): Promise<BlobInfo>;
  /** size of a stored object, undefined when there is none */
  stat(key: string): Promise<BlobInfo | undefined>;
  /**
   * the bytes, streamed; undefined when there is none. `range`: only bytes `start` to `end`
   * (inclusive, within the object); `size` is still the whole object's.
   */
  open(key: string, range?: { start: number; end: number }): Promise<(BlobInfo & { stream: AsyncIterable<Uint8Array> }) | undefined>;
  /** the whole object in memory (small objects only) */
  read(key: string): Promise<Buffer | undefined>;
  /** writes the concatenation of `sources`, in order, under `target` (multipart assembly) */
  concat(target: string, sources: string[]): Promise<BlobInfo>;
  /** removes one object; false when it did not exist */
  delete(key: string): Promise<boolean>;
  /** removes every object whose key starts with `prefix/` (a folder); returns how many */
  deleteTree(prefix: string): Promise<number>;
}
