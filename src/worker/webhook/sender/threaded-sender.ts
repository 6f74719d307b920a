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
import type { Worker } from 'node:worker_threads';
import type { StartThread } from '../../../ports/thread.js';
import { checkClientOptions, type WebhookClientOptions } from '../client/http-client.js';
import type { ReportBatch, SenderOptions } from './sender-core.js';
import { packJobs, unpackReports, type FromSender, type SenderThreadData, type ToSender } from './sender-protocol.js';
import type { Sender } from './sender.js';

/** the error of the jobs a dead thread held */
export const SENDER_FAILED = 'SENDER_FAILED';

export interface ThreadedSender extends Sender {
  /** the thread while one runs (a test ends it to check that a crash is survived) */
  readonly thread: Worker | undefined;
}

/** `threads`: the thread manager (adapters/thread-port.ts, handed in by main.ts); `onError`: told when the thread fails */
export function createThreadedSender(
  threads: StartThread,
  client: WebhookClientOptions,
  opts: SenderOptions,
  deliver: (batch: ReportBatch) => void,
  onError: (err: unknown) => void = () => {},
): ThreadedSender {
  checkClientOptions(client);
  let closed = false;
  // the jobs in the thread that have not been reported yet are its tickets
  const port = threads<ToSender, FromSender, true>({
    from: import.meta.url,
    module: 'sender-thread',
    workerData: { client, sender: opts } satisfies SenderThreadData,
    onMessage(m) {
      if ('stopped' in m) return;
      const batch = unpackReports(m.batch);
      for (const r of batch.reports) port.settle(r.id);
      deliver(batch);
    },
    onLost(lost, err) {
      if (err !== undefined) onError(err);
      const reports = [...lost.keys()].map((id) => ({
        id: String(id),
        result: { ok: false, responseBody: '', latencyMs: 0, error: SENDER_FAILED },
        signal: 'neutral' as const,
      }));
      deliver({ reports, caps: [] });
    },
  });

  return {
    get thread() {
      return port.thread;
    },
    submit(jobs) {
      if (closed) throw new Error('sender closed');
      if (jobs.length === 0) return;
      // posted at once: a submit is a batch already (a commit's hand-over, a claim's rows), and
      // waiting for the end of the turn put a delivery behind whatever else the turn read (the
      // next publishes, their validation and commit): up to milliseconds at half load (issue #26)
      port.post(
        { jobs: packJobs(jobs) } satisfies ToSender,
        jobs.map((j) => [j.id, true] as [string, true]),
      );
    },
    async stop(graceMs) {
      // the thread answers within graceMs; the extra second only guards against one that cannot
      await port.ask<FromSender>({ stop: true, graceMs } satisfies ToSender, (m) => m !== undefined && 'stopped' in m, graceMs + 1000);
    },
    close() {
      closed = true;
      void port.terminate();
    },
  };
}
