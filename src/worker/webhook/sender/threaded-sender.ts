// The sender in a worker_thread (sender-thread.ts). A delivery's exchange (signing, the socket
// syscalls, reading the answer) costs a good share of what ingesting the event that caused it
// does (`npm run bench -- webhooks`); on one event loop the two share one core, leaving the
// second idle in embedded mode.
// The whole send loop runs in the thread — buffer, lanes, signing, the keep-alive pool — so a
// freed slot starts the next delivery there at once; only batches of jobs and of reports cross
// between threads, never one hop per delivery on its critical path. Leases, outcomes and retries
// stay with the runner on the main event loop.
//
// If the thread dies (it should not), the jobs it held are reported as failed attempts
// (SENDER_FAILED), which the delivery policy retries like any network failure, and the next
// submit starts a new thread.
import { Worker } from 'node:worker_threads';
import { threadBoot } from '../../../adapters/thread-boot.js';
import { checkClientOptions, type WebhookClientOptions } from '../client/http-client.js';
import type { ReportBatch, SenderOptions } from './sender-core.js';
import type { FromSender, SenderThreadData, ToSender } from './sender-protocol.js';
import type { Sender } from './sender.js';
import type { Job } from './request.js';

/** the error of the jobs a dead thread held */
export const SENDER_FAILED = 'SENDER_FAILED';

const BOOT = threadBoot(import.meta.url, 'sender-thread');

export interface ThreadedSender extends Sender {
  /** the thread while one runs (a test ends it to check that a crash is survived) */
  readonly thread: Worker | undefined;
}

/** `onError`: told when the thread fails */
export function createThreadedSender(
  client: WebhookClientOptions,
  opts: SenderOptions,
  deliver: (batch: ReportBatch) => void,
  onError: (err: unknown) => void = () => {},
): ThreadedSender {
  checkClientOptions(client);
  const data: SenderThreadData = { client, sender: opts };
  // jobs in the thread that have not been reported yet
  const outstanding = new Set<string>();
  let queue: Job[] = [];
  let scheduled = false;
  let worker: Worker | undefined;
  let stopping: (() => void) | undefined;
  let closed = false;

  function gone(w: Worker, err?: unknown): void {
    if (worker !== w) return;
    worker = undefined;
    if (err !== undefined) onError(err);
    const lost = [...outstanding];
    outstanding.clear();
    if (lost.length > 0) deliver({ reports: lost.map((id) => ({ id, result: { ok: false, responseBody: '', latencyMs: 0, error: SENDER_FAILED }, signal: 'neutral' as const })), caps: [] });
    stopping?.();
  }

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(BOOT, { eval: true, workerData: data });
    w.on('message', (m: FromSender) => {
      if ('stopped' in m) return stopping?.();
      for (const r of m.batch.reports) outstanding.delete(r.id);
      // an idle thread does not keep the process alive; one with deliveries under way does
      if (outstanding.size === 0) w.unref();
      deliver(m.batch);
    });
    w.on('error', (err) => gone(w, err));
    w.on('exit', () => gone(w));
    worker = w;
    return w;
  }

  function flush(): void {
    scheduled = false;
    if (queue.length === 0) return;
    const jobs = queue;
    queue = [];
    const w = thread();
    w.ref();
    w.postMessage({ jobs } satisfies ToSender);
  }

  return {
    get thread() {
      return worker;
    },
    submit(jobs) {
      if (closed) throw new Error('sender closed');
      for (const j of jobs) {
        outstanding.add(j.id);
        queue.push(j);
      }
      // the jobs of this turn go together
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async stop(graceMs) {
      flush();
      const w = worker;
      if (!w) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        stopping = resolve;
        w.postMessage({ stop: true, graceMs } satisfies ToSender);
        // the thread answers within graceMs; this only guards against one that cannot
        timer = setTimeout(resolve, graceMs + 1000);
      });
      clearTimeout(timer);
      stopping = undefined;
    },
    close() {
      closed = true;
      const w = worker;
      worker = undefined;
      outstanding.clear();
      if (w) void w.terminate();
    },
  };
}
