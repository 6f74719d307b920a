// Where the runner hands jobs: a sender (sender-core.ts) in a thread of its own
// (threaded-sender.ts, the default) or on the runner's own event loop (this file). Either way
// every job submitted ends in exactly one report, delivered in batches.
import { createWebhookClient, type WebhookClientOptions } from '../client/http-client.js';
import { createSenderCore, type ReportBatch, type SenderOptions } from './sender-core.js';
import type { Job } from './request.js';

export interface Sender {
  submit(jobs: Job[]): void;
  /** start nothing more: buffered jobs are reported released; resolves once the exchanges under way have reported, or after graceMs */
  stop(graceMs: number): Promise<void>;
  /** drops the pool (after stop) */
  close(): void;
}

export function createLocalSender(client: WebhookClientOptions, opts: SenderOptions, deliver: (batch: ReportBatch) => void): Sender {
  const http = createWebhookClient(client);
  const core = createSenderCore(http, opts, deliver);
  return { submit: (jobs) => core.submit(jobs), stop: (graceMs) => core.stop(graceMs), close: () => http.close() };
}
