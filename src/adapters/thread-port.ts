// The one worker-thread manager (ports/thread.ts) behind the access-log writer
// (sql/access-log-writer.ts) and the webhook sender (worker/webhook/sender/threaded-sender.ts):
// the thread starts on the first post, holds the process open only while requests are
// outstanding, and when it dies its outstanding requests go back to the owner (onLost) and the
// next post starts a new one.
import { Worker } from 'node:worker_threads';
import type { StartThread, ThreadOptions, ThreadPort } from '../ports/thread.js';
import { threadBoot } from './thread-boot.js';

export const startThread: StartThread = <In, Out, Ticket>(opts: ThreadOptions<Out, Ticket>): ThreadPort<In, Ticket> => {
  const boot = threadBoot(opts.from, opts.module);
  const tickets = new Map<string | number, Ticket>();
  // a reply a caller of ask() waits for
  const waiting = new Set<(m: Out) => void>();
  let worker: Worker | undefined;

  function gone(w: Worker, err?: Error): void {
    if (worker !== w) return;
    worker = undefined;
    for (const wake of waiting) wake(undefined as Out);
    if (tickets.size === 0) return;
    const lost = new Map(tickets);
    tickets.clear();
    opts.onLost(lost, err);
  }

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(boot, { eval: true, workerData: opts.workerData });
    w.on('message', (m: Out) => {
      for (const wake of waiting) wake(m);
      opts.onMessage(m);
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
    post(message, add, transfer) {
      if (add) for (const [id, t] of add) tickets.set(id, t);
      const w = thread();
      w.ref();
      w.postMessage(message, transfer);
    },
    settle(id) {
      const t = tickets.get(id);
      tickets.delete(id);
      // an idle thread does not keep the process alive; one with requests under way does
      if (tickets.size === 0) worker?.unref();
      return t;
    },
    async ask<R>(message: In, until: (reply: R) => boolean, timeoutMs: number) {
      const w = worker;
      if (!w) return;
      let timer: NodeJS.Timeout | undefined;
      let wake: ((m: Out) => void) | undefined;
      await new Promise<void>((resolve) => {
        // a reply, or the thread's end (gone() wakes with undefined)
        wake = (m) => {
          if (worker !== w || until(m as unknown as R)) resolve();
        };
        waiting.add(wake);
        w.ref();
        w.postMessage(message);
        // the thread answers in time; this only guards against one that cannot
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      waiting.delete(wake!);
    },
    async terminate() {
      const w = worker;
      worker = undefined;
      tickets.clear();
      for (const wake of waiting) wake(undefined as Out);
      if (w) await w.terminate();
    },
  };
};
