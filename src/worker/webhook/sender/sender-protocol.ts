// Messages between the worker's runner and its sender thread (threaded-sender.ts,
// sender-thread.ts). Jobs and reports travel in batches, not one postMessage per delivery: jobs a
// batch per submit (a commit's hand-over, a claim's rows), reports a batch per turn of the thread.
//
// Both travel packed into flat arrays (packJobs, packReports), not as arrays of objects: a
// postMessage clones an object property by property, name and value, and a report's nested
// result is two objects more. The hand-over of jobs was the main thread's largest cost of ours
// on an MQTT event (`BENCH_PROFILE=… npm run bench -- webhooks`: postMessage about a tenth of the
// event loop's busy time, issue #26); a job's target (lane, URL, key, templates) is the same for
// all the rows of one webhook in a batch, and is sent once.
import type { WebhookClientOptions, WebhookResult } from '../client/http-client.js';
import type { LaneSignal } from './lanes.js';
import type { Job } from './request.js';
import type { Report, ReportBatch, SenderOptions } from './sender-core.js';

export interface SenderThreadData {
  client: WebhookClientOptions;
  sender: SenderOptions;
}

/**
 * [target count, (lane, url, key, templates or null) × target count, (id, target index,
 * payload) × jobs]
 */
export type PackedJobs = unknown[];

/**
 * [lane, cap] × caps.length / 2 in `caps`; in `reports`, per report its kind then its fields:
 * 0 (sent): id, signal, ok, status, responseBody, latencyMs, error, retryAfterMs, headers
 * (absent ones as null); 1 (dropped): id, reason; 2 (released): id
 */
export interface PackedReports {
  reports: unknown[];
  caps: unknown[];
}

export type ToSender = { jobs: PackedJobs } | { stop: true; graceMs: number };

export type FromSender = { batch: PackedReports } | { stopped: true };

const TARGET = 4;
const JOB = 3;

export function packJobs(jobs: Job[]): PackedJobs {
  const targets: unknown[] = [0];
  const rest: unknown[] = [];
  let last: Job | undefined;
  let index = -1;
  for (const j of jobs) {
    // the rows of one webhook come together (a batch is grouped by lane): comparing with the
    // previous job's target finds nearly every repeat
    if (last === undefined || j.lane !== last.lane || j.url !== last.url || j.key !== last.key || j.templates !== last.templates) {
      targets.push(j.lane, j.url, j.key, j.templates ?? null);
      index++;
      last = j;
    }
    rest.push(j.id, index, j.payload);
  }
  targets[0] = index + 1;
  for (const x of rest) targets.push(x);
  return targets;
}

export function unpackJobs(p: PackedJobs): Job[] {
  const count = p[0] as number;
  const jobs: Job[] = [];
  for (let at = 1 + count * TARGET; at < p.length; at += JOB) {
    const t = 1 + (p[at + 1] as number) * TARGET;
    const job: Job = { id: p[at] as string, lane: p[t] as string, url: p[t + 1] as string, key: p[t + 2] as string, payload: p[at + 2] as string };
    const templates = p[t + 3] as Job['templates'] | null;
    if (templates !== null) job.templates = templates;
    jobs.push(job);
  }
  return jobs;
}

export function packReports(batch: ReportBatch): PackedReports {
  const out: unknown[] = [];
  for (const r of batch.reports) {
    if ('result' in r) {
      const x = r.result;
      out.push(0, r.id, r.signal, x.ok, x.status ?? null, x.responseBody, x.latencyMs, x.error ?? null, x.retryAfterMs ?? null, x.headers ?? null);
    } else if ('drop' in r) out.push(1, r.id, r.drop);
    else out.push(2, r.id);
  }
  const caps: unknown[] = [];
  for (const [lane, cap] of batch.caps) caps.push(lane, cap);
  return { reports: out, caps };
}

export function unpackReports(p: PackedReports): ReportBatch {
  const reports: Report[] = [];
  const r = p.reports;
  for (let at = 0; at < r.length;) {
    const kind = r[at] as number;
    const id = r[at + 1] as string;
    if (kind === 0) {
      const result: WebhookResult = { ok: r[at + 3] as boolean, responseBody: r[at + 5] as string, latencyMs: r[at + 6] as number };
      if (r[at + 4] !== null) result.status = r[at + 4] as number;
      if (r[at + 9] !== null) result.headers = r[at + 9] as Record<string, string>;
      if (r[at + 8] !== null) result.retryAfterMs = r[at + 8] as number;
      if (r[at + 7] !== null) result.error = r[at + 7] as string;
      reports.push({ id, result, signal: r[at + 2] as LaneSignal });
      at += 10;
    } else if (kind === 1) {
      reports.push({ id, drop: r[at + 2] as string });
      at += 3;
    } else {
      reports.push({ id, released: true });
      at += 2;
    }
  }
  const caps: [string, number][] = [];
  for (let i = 0; i < p.caps.length; i += 2) caps.push([p.caps[i] as string, p.caps[i + 1] as number]);
  return { reports, caps };
}
