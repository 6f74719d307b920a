// The fsync of SQLite's WAL file, off the event loop (docs/operations.md#durability).
//
// With synchronous=FULL a WAL commit writes its frames and then fsyncs the WAL file before
// COMMIT returns; better-sqlite3 runs that on the main thread, so the event loop stood still for
// every commit's fsync (`npm run bench -- ingest`: a quarter of the wall time inside COMMIT, one
// fsync per commit). A commit that may wait (the event pipeline's group commit) is made with
// synchronous=NORMAL instead: the same frames go into the WAL in the same order, without the
// fsync; then this syncs the WAL file from libuv's thread pool, and only after that is anyone
// answered. While the disk syncs, the event loop reads and checks the next publishes, which
// gather for the next commit.
//
// Durable as FULL: fsync(2) flushes the file's data whichever descriptor asks, so once it returns
// every frame written before it was called is on disk, and a commit's frames are all written when
// its COMMIT returns. A checkpoint syncs the WAL itself before it copies frames into the database
// (NORMAL keeps that), so no frame is dropped from the WAL before it is durable. FULL's commit does
// this fsync and nothing more (on Linux and macOS, whose SQLite builds assume powersafe overwrite).
// On Linux the sync is fdatasync(2): the frames and the file's new size (what reading them back
// needs), without the modification time, which fsync also writes. Elsewhere fsync, as SQLite does.
//
// A failed sync is final. After fsync(2) reports an I/O error, Linux may have dropped the dirty
// pages it could not write and marked them clean, so a later fsync can succeed without them; and
// SQLite's recovery stops at the first WAL frame missing, dropping every commit after it. Trying
// again and answering the commits the retry covers would acknowledge events a restart then loses.
// So every later sync is refused with the first error (no event is answered until the node is
// restarted and SQLite has recovered the WAL to its last durable commit), as PostgreSQL stops on
// a failed fsync. Failing to open the WAL syncs nothing and is tried again at the next sync.
import { open, type FileHandle } from 'node:fs/promises';

const DATA_ONLY = process.platform === 'linux';

export interface WalSync {
  /** resolves once every commit made on the connection before the call is on disk */
  sync(): Promise<void>;
  /** the failure every sync is now refused with (a sync failed), for /readyz */
  failure(): Error | undefined;
  /** waits for the syncs under way, then lets the file go */
  close(): Promise<void>;
}

/** `file`: the database file in WAL mode; its WAL is `<file>-wal`, opened at the first sync */
export function walSync(file: string): WalSync {
  let wal: Promise<FileHandle> | undefined;
  const under = new Set<Promise<void>>();
  let closed = false;
  /** the first sync that failed: every later one is refused with it (see above) */
  let failed: Error | undefined;

  async function once(): Promise<void> {
    // the WAL exists once a commit has been made, which is what a sync follows
    wal ??= open(`${file}-wal`, 'r');
    let h: FileHandle;
    try {
      h = await wal;
    } catch (err) {
      wal = undefined;
      throw err;
    }
    try {
      await (DATA_ONLY ? h.datasync() : h.sync());
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      failed ??= new Error(
        `syncing ${file}-wal to disk failed (${why}): commits since the last sync may not be on disk, so no further commit is acknowledged; restart the node to recover the database to its last durable commit`,
        { cause: err },
      );
      throw failed;
    }
  }

  return {
    sync() {
      if (closed) return Promise.reject(new Error('the database is closed'));
      if (failed) return Promise.reject(failed);
      const p = once();
      const tracked = p.then(
        () => {},
        () => {},
      );
      under.add(tracked);
      void tracked.then(() => under.delete(tracked));
      return p;
    },
    failure: () => failed,
    async close() {
      closed = true;
      await Promise.all(under);
      const h = await wal?.catch(() => undefined);
      wal = undefined;
      await h?.close();
    },
  };
}
