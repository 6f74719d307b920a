// The access log's writer on SQLite: a worker_thread with its own connection to the access-log
// file (connect.ts), which every authenticated request adds a row to (docs/operations.md#logs). Written on the
// API's event loop, the inserts cost a fifth of a GET (`npm run bench -- api`); here they run on
// the other core, and only one flat array a batch crosses between the threads.
//
// A batch's promise settles once the thread has committed it, or failed to: the recorder
// (src/http/access-log.ts) keeps its rows' order and reports failures as it did. If the thread
// dies, the batches it held fail and the next batch starts a new thread.
import type { Worker } from 'node:worker_threads';
import { startThread } from '../thread-port.js';
import type { AccessLogRow } from '../../ports/store.js';
import { encode, type FromWriter, type ToWriter, type WriterData } from './access-log-protocol.js';

export interface AccessLogWriter {
  /** resolves once the rows are committed; rejects with the reason they were not */
  write(rows: readonly AccessLogRow[]): Promise<void>;
  /** waits for the batches under way, then ends the thread */
  close(): Promise<void>;
  /** the thread while one runs (a test ends it to check that a crash is survived) */
  readonly thread: Worker | undefined;
}

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

// the thread ends on its own once its connection is closed; this only guards against one that cannot
const CLOSE_TIMEOUT_MS = 10_000;

export function createAccessLogWriter(file: string, cacheBytes?: number): AccessLogWriter {
  let nextId = 1;
  let closed = false;
  const port = startThread<ToWriter, FromWriter, Pending>({
    from: import.meta.url,
    module: 'access-log-thread',
    workerData: { file, cacheBytes } satisfies WriterData,
    onMessage(m) {
      if ('closed' in m) return;
      const p = port.settle(m.id);
      if (!p) return;
      if (m.error === undefined) p.resolve();
      else p.reject(new Error(m.error));
    },
    onLost(pending, err) {
      const reason = new Error(`access-log writer thread stopped${err ? `: ${err.message}` : ''}`);
      for (const p of pending.values()) p.reject(reason);
    },
  });

  return {
    get thread() {
      return port.thread;
    },
    write(rows) {
      if (closed) return Promise.reject(new Error('access-log writer closed'));
      if (rows.length === 0) return Promise.resolve();
      const id = nextId++;
      const batch = encode(rows);
      return new Promise<void>((resolve, reject) => port.post({ id, batch } satisfies ToWriter, [[id, { resolve, reject }]], [batch.numbers.buffer]));
    },
    async close() {
      if (closed) return;
      closed = true;
      // the batches already posted are written first (the thread takes messages in order), then
      // the thread closes its connection and exits
      await port.ask<FromWriter>({ close: true }, () => false, CLOSE_TIMEOUT_MS);
      await port.terminate();
    },
  };
}
