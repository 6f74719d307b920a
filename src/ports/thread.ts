// A worker_thread seen from the thread that starts it (adapters/thread-port.ts): started on the
// first message, restarted on the next one after it died, with the requests it held ("tickets",
// by id) handed back when it dies so that none is left waiting. Both threads of Hearth use it: the
// access-log writer (adapters/sql) and the webhook sender (worker/); the worker gets it through
// its deps (main.ts), as edges get every adapter.
import type { Worker } from 'node:worker_threads';

export interface ThreadOptions<Out, Ticket> {
  /** import.meta.url of the module that starts the thread */
  from: string;
  /** the thread's module, a sibling of `from`, without extension */
  module: string;
  workerData: unknown;
  /** a message from the thread (settle its requests with ThreadPort.settle) */
  onMessage(message: Out): void;
  /**
   * the thread died (crashed: `err`; or exited) while these requests were outstanding; they are
   * forgotten, and the next post starts a new thread
   */
  onLost(tickets: Map<string | number, Ticket>, err: Error | undefined): void;
}

export interface ThreadPort<In, Ticket> {
  /** the thread while one runs (a test ends it to check that a crash is survived) */
  readonly thread: Worker | undefined;
  /** posts (starting the thread if none runs); `tickets` are the requests it answers later */
  post(message: In, tickets?: Iterable<[string | number, Ticket]>, transfer?: readonly ArrayBuffer[]): void;
  /** a request answered: its ticket, forgotten. With none outstanding the thread no longer keeps the process alive */
  settle(id: string | number): Ticket | undefined;
  /**
   * posts `message` to a running thread and waits until `until` holds for a message back, the
   * thread exits, or timeoutMs pass; resolves at once when no thread runs
   */
  ask<Out>(message: In, until: (reply: Out) => boolean, timeoutMs: number): Promise<void>;
  /** ends the thread now; outstanding tickets are dropped without onLost */
  terminate(): Promise<void>;
}

export type StartThread = <In, Out, Ticket = true>(opts: ThreadOptions<Out, Ticket>) => ThreadPort<In, Ticket>;
