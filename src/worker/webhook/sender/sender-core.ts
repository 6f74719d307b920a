// The sending half of the worker: jobs (claimed deliveries, resolved and keyed by the runner) wait
// in a buffer until a slot of the worker and of their lane is free, then are signed (templates,
// docs/webhooks.md#verifying-signatures) and sent through the keep-alive pool. Each job ends in one report: sent (with the
// exchange's result), dropped (a template error, nothing sent) or released (never started: its
// lane went slow, or the sender is stopping). Reports leave in batches, one per turn.
//
// It runs where the exchanges run — the sender thread (sender-thread.ts) or, without one, the
// worker's own event loop (sender.ts) — so a freed slot starts the next job at once, without a
// round trip to the runner.
import type { WebhookClient, WebhookResult } from '../client/http-client.js';
import { Lanes, type LaneSignal } from './lanes.js';
import { buildRequest, type Job } from './request.js';

export type Report = { id: string; result: WebhookResult; signal: LaneSignal } | { id: string; drop: string } | { id: string; released: true };

export interface ReportBatch {
  reports: Report[];
  /** lanes whose cap changed since the last batch, with their cap now */
  caps: [lane: string, cap: number][];
}

export interface SenderOptions {
  concurrency: number;
  /** a job buffered longer than this goes back (its lane is slow); the lease must outlast it */
  staleMs: number;
}

export interface SenderCore {
  submit(jobs: Job[]): void;
  /** start nothing more; buffered jobs are released; resolves once the exchanges under way have reported, or after graceMs */
  stop(graceMs: number): Promise<void>;
}

interface Waiting {
  job: Job;
  at: number;
}

const is2xx = (r: WebhookResult) => r.status !== undefined && r.status >= 200 && r.status < 300;

/** how an answer sizes its lane (lanes.ts): 2xx grows it, no answer or a 5xx shrinks it */
export function signalOf(r: WebhookResult): LaneSignal {
  if (is2xx(r)) return 'ok';
  if (r.status === undefined || r.status >= 500) return 'slow';
  return 'neutral';
}

export function createSenderCore(client: WebhookClient, opts: SenderOptions, deliver: (batch: ReportBatch) => void): SenderCore {
  const lanes = new Lanes(opts.concurrency);
  // buffer[head..] waits, oldest first; the slots before head were started and are cut off in
  // bulk (compact), not shifted out one by one: a start is O(1) when its job is the oldest
  let buffer: Waiting[] = [];
  let head = 0;
  let sending = 0;
  let stopped = false;
  let out: Report[] = [];
  const changedCaps = new Set<string>();
  let scheduled = false;
  let idle: (() => void) | undefined;
  const staleTimer = setInterval(() => releaseStale(Date.now()), Math.max(10, opts.staleMs / 4));
  staleTimer.unref();

  function report(r: Report): void {
    out.push(r);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  function flush(): void {
    scheduled = false;
    if (out.length === 0 && changedCaps.size === 0) return;
    const batch: ReportBatch = { reports: out, caps: [...changedCaps].map((l) => [l, lanes.capOf(l)]) };
    out = [];
    changedCaps.clear();
    deliver(batch);
    if (stopped && sending === 0) idle?.();
  }

  function start(job: Job): void {
    let prepared: ReturnType<typeof buildRequest>;
    try {
      prepared = buildRequest(job);
    } catch {
      // not the receiver's doing: a failed attempt, retried like a network error
      done(job, { ok: false, responseBody: '', latencyMs: 0, error: 'PREPARE_FAILED' });
      return;
    }
    if ('drop' in prepared) {
      sending--;
      finish(job, 'neutral');
      report({ id: job.id, drop: prepared.drop });
      return;
    }
    void client.send(prepared.send).then((result) => done(job, result));
  }

  function done(job: Job, result: WebhookResult): void {
    sending--;
    const signal = signalOf(result);
    finish(job, signal);
    report({ id: job.id, result, signal });
  }

  function finish(job: Job, signal: LaneSignal): void {
    const before = lanes.capOf(job.lane);
    lanes.release(job.lane, signal);
    if (lanes.capOf(job.lane) !== before) changedCaps.add(job.lane);
    startBuffered();
  }

  /** start buffered jobs, oldest first, while the worker and each job's lane have room */
  function startBuffered(): void {
    if (stopped || head >= buffer.length || sending >= opts.concurrency) return;
    const runnable: Job[] = [];
    let kept = head;
    let i = head;
    // jobs whose lane is full move down in place; the scan stops once the worker has no slot left
    for (; i < buffer.length && sending < opts.concurrency; i++) {
      const w = buffer[i];
      // the slot is taken here; an exchange, a drop or a failure gives it back
      if (lanes.tryAcquire(w.job.lane)) {
        sending++;
        runnable.push(w.job);
      } else buffer[kept++] = w;
    }
    if (kept < i) {
      // nothing passed over: the head moves; otherwise the rest closes up behind what was kept
      if (kept === head) head = i;
      else {
        buffer.copyWithin(kept, i);
        buffer.length -= i - kept;
      }
      compact();
    }
    for (const job of runnable) start(job);
  }

  /** drops the started slots before head once they are half the array (amortised O(1) per job) */
  function compact(): void {
    if (head === buffer.length) {
      buffer = [];
      head = 0;
    } else if (head >= 64 && head * 2 >= buffer.length) {
      buffer = buffer.slice(head);
      head = 0;
    }
  }

  function releaseStale(now: number): void {
    if (head >= buffer.length) return;
    const keep: Waiting[] = [];
    for (let i = head; i < buffer.length; i++) {
      const w = buffer[i];
      if (now - w.at > opts.staleMs) report({ id: w.job.id, released: true });
      else keep.push(w);
    }
    buffer = keep;
    head = 0;
  }

  return {
    submit(jobs) {
      const at = Date.now();
      for (const job of jobs) {
        if (stopped) report({ id: job.id, released: true });
        else buffer.push({ job, at });
      }
      startBuffered();
    },
    stop(graceMs) {
      stopped = true;
      clearInterval(staleTimer);
      for (let i = head; i < buffer.length; i++) report({ id: buffer[i].job.id, released: true });
      buffer = [];
      head = 0;
      if (sending === 0) {
        flush();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, graceMs);
        function done() {
          clearTimeout(timer);
          idle = undefined;
          flush();
          resolve();
        }
        idle = done;
      });
    },
  };
}
