// The access log's writer on SQLite: a worker_thread with its own connection to the access-log
// file (connect.ts), which every authenticated request adds a row to (API.md §8). Written on the
// API's event loop, the inserts cost a fifth of a GET (`npm run bench -- api`); here they run on
// the other core, and only one flat array a batch crosses between the threads.
//
// A batch's promise settles once the thread has committed it, or failed to: the recorder
// (src/http/access-log.ts) keeps its rows' order and reports failures as it did. If the thread
// dies, the batches it held fail and the next batch starts a new thread.
import { Worker } from 'node:worker_threads';
import { threadBoot } from '../thread-boot.js';
import type { AccessLogRow } from '../../ports/store.js';
import { encode, type FromWriter, type ToWriter, type WriterData } from './access-log-protocol.js';

const BOOT = threadBoot(import.meta.url, 'access-log-thread');

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

export function createAccessLogWriter(file: string): AccessLogWriter {
  const data: WriterData = { file };
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let worker: Worker | undefined;
  let closed = false;

  function gone(w: Worker, err?: unknown): void {
    if (worker !== w) return;
    worker = undefined;
    const reason = new Error(`access-log writer thread stopped${err instanceof Error ? `: ${err.message}` : ''}`);
    for (const p of pending.values()) p.reject(reason);
    pending.clear();
  }

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(BOOT, { eval: true, workerData: data });
    w.on('message', (m: FromWriter) => {
      if ('closed' in m) return;
      const p = pending.get(m.id);
      pending.delete(m.id);
      // an idle thread does not keep the process alive
      if (pending.size === 0) w.unref();
      if (!p) return;
      if (m.error === undefined) p.resolve();
      else p.reject(new Error(m.error));
    });
    w.on('error', (err) => gone(w, err));
    w.on('exit', () => gone(w));
    worker = w;
    return w;
  }

  return {
    get thread() {
      return worker;
    },
    write(rows) {
      if (closed) return Promise.reject(new Error('access-log writer closed'));
      if (rows.length === 0) return Promise.resolve();
      const id = nextId++;
      const batch = encode(rows);
      const w = thread();
      w.ref();
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, batch } satisfies ToWriter, [batch.numbers.buffer]);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      const w = worker;
      if (!w) return;
      // the batches already posted are written first: the thread takes messages in order
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.ref();
      w.postMessage({ close: true } satisfies ToWriter);
      let timer: NodeJS.Timeout | undefined;
      // the thread ends on its own once its connection is closed; this only guards against one that cannot
      await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
      if (worker === w) await w.terminate();
    },
  };
}
