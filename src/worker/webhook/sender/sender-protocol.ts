// Messages between the worker's runner and its sender thread (threaded-sender.ts,
// sender-thread.ts). Jobs and reports travel in batches, not one postMessage per delivery: jobs a
// batch per submit (a commit's hand-over, a claim's rows), reports a batch per turn of the thread.
import type { WebhookClientOptions } from '../client/http-client.js';
import type { Job } from './request.js';
import type { ReportBatch, SenderOptions } from './sender-core.js';

export interface SenderThreadData {
  client: WebhookClientOptions;
  sender: SenderOptions;
}

export type ToSender = { jobs: Job[] } | { stop: true; graceMs: number };

export type FromSender = { batch: ReportBatch } | { stopped: true };
